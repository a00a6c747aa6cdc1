package main

import (
	"bytes"
	"io"
	"os"
	"sync"
)

// A Tee copies one stream of the commands to the container's stream and to the log file, masking
// secret values. Output is split into lines so that a value is masked even when it spans two reads; a
// partial line is held until its newline, the end of the stream, or MaxLine bytes.
type Tee struct {
	mu      sync.Mutex
	pass    io.Writer
	file    io.Writer
	masks   [][]byte
	pending []byte
	max     int
}

var maskText = []byte("*******")

func newTee(pass io.Writer, file io.Writer, masks []string, max int) *Tee {
	t := &Tee{pass: pass, max: max}
	if f, ok := file.(*os.File); !ok || f != nil {
		t.file = file // a nil *os.File (no log file) stays a nil writer
	}
	for _, m := range masks {
		t.masks = append(t.masks, []byte(m))
	}
	return t
}

// maskBytes replaces every occurrence of each value with the mask.
func maskBytes(b []byte, masks [][]byte) []byte {
	for _, m := range masks {
		b = bytes.ReplaceAll(b, m, maskText)
	}
	return b
}

// maskAll is maskBytes for values given as strings.
func maskAll(b []byte, masks []string) []byte {
	values := make([][]byte, 0, len(masks))
	for _, m := range masks {
		values = append(values, []byte(m))
	}
	return maskBytes(b, values)
}

// Write never fails: a full disk or a closed container stream must not kill the step.
func (t *Tee) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending = append(t.pending, p...)
	if i := bytes.LastIndexByte(t.pending, '\n'); i >= 0 {
		t.emit(t.pending[:i+1])
		t.pending = append([]byte(nil), t.pending[i+1:]...)
	}
	if len(t.pending) >= t.max {
		t.emit(t.pending)
		t.pending = nil
	}
	return len(p), nil
}

// Flush writes a partial last line.
func (t *Tee) Flush() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.pending) > 0 {
		t.emit(t.pending)
		t.pending = nil
	}
}

func (t *Tee) emit(b []byte) {
	b = maskBytes(b, t.masks)
	_, _ = t.pass.Write(b)
	if t.file != nil {
		_, _ = t.file.Write(b)
	}
}

// Note writes a line of the entry's own (a command that cannot start) to both copies of stderr.
func (t *Tee) Note(msg string) {
	t.Flush()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.emit([]byte(msg + "\n"))
}
