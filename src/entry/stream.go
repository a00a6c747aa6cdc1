package main

import (
	"bytes"
	"io"
	"os"
	"sync"
)

// A Tee copies one stream of the commands to the container's stream and to the log file, masking
// secret values (mask.go: a secret split across reads or lines is still masked). Output goes on in
// lines: a partial line is held until its newline, the end of the stream, or MaxLine bytes.
type Tee struct {
	mu      sync.Mutex
	pass    io.Writer
	file    io.Writer
	masker  *masker
	pending []byte
	max     int
}

func newTee(pass io.Writer, file io.Writer, masks []string, max int) *Tee {
	t := &Tee{pass: pass, max: max, masker: newMasker(masks)}
	if f, ok := file.(*os.File); !ok || f != nil {
		t.file = file // a nil *os.File (no log file) stays a nil writer
	}
	return t
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

// Flush writes a partial last line, and what the masker held back.
func (t *Tee) Flush() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.pending) > 0 {
		t.emit(t.pending)
		t.pending = nil
	}
	t.write(t.masker.flush())
}

func (t *Tee) emit(b []byte) {
	t.write(t.masker.push(b))
}

func (t *Tee) write(b []byte) {
	if len(b) == 0 {
		return
	}
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
