package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// Upload says where the step's logs and result go when the operator keeps them in an S3-compatible
// bucket (ADR 0014): an S3 POST policy (a form upload) that lets this Pod write keys under its own
// execution's prefixes only, and read nothing.
type Upload struct {
	URL    string            `json:"url"`
	Fields map[string]string `json:"fields"`
	Stdout string            `json:"stdout"` // key prefix of the stdout log's chunks
	Stderr string            `json:"stderr"` // the stderr log's (equal to Stdout when merged)
	Result string            `json:"result"` // key of the result
	Writer string            `json:"writer"` // chunk names' writer id
}

func parseUpload(text string) (*Upload, error) {
	var u Upload
	if err := json.Unmarshal([]byte(text), &u); err != nil {
		return nil, fmt.Errorf("--upload-env: not an upload grant: %v", err)
	}
	if u.URL == "" || u.Stdout == "" || u.Stderr == "" || u.Result == "" || u.Writer == "" {
		return nil, errors.New("--upload-env: the grant needs url, stdout, stderr, result and writer")
	}
	return &u, nil
}

// logBuffer holds what a log gained since it was last shipped.
type logBuffer struct {
	mu      sync.Mutex
	buf     []byte
	dropped int // bytes not kept while the bucket refused uploads and the buffer was full
	prefix  string
	nudge   chan struct{}
}

// shipNow: a buffer this large is shipped at once rather than at the next tick.
const shipNow = 4 << 20

// maxBuffered: while uploads fail, at most this much of a log waits in memory; later output is dropped
// (and the log says how much) rather than the step's container running out of memory.
const maxBuffered = 64 << 20

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	if len(b.buf)+len(p) > maxBuffered {
		b.dropped += len(p)
	} else {
		b.buf = append(b.buf, p...)
	}
	full := len(b.buf) >= shipNow
	b.mu.Unlock()
	if full {
		select {
		case b.nudge <- struct{}{}:
		default:
		}
	}
	return len(p), nil
}

func (b *logBuffer) take() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.buf
	if b.dropped > 0 {
		out = append(out, fmt.Sprintf("\n[svc-entry: %d bytes of output were dropped: the bucket did not take them in time]\n", b.dropped)...)
		b.dropped = 0
	}
	b.buf = nil
	return out
}

// putBack returns bytes a failed upload took, ahead of what came since.
func (b *logBuffer) putBack(p []byte) {
	b.mu.Lock()
	b.buf = append(p, b.buf...)
	b.mu.Unlock()
}

// A shipper uploads each log's new bytes as one chunk object, 250 ms after the start and every 2 s after,
// then the result last: once the result is there, the logs are whole.
type shipper struct {
	up     *Upload
	client *http.Client
	logs   []*logBuffer
	seq    int
	nudge  chan struct{}
	stop   chan struct{}
	done   chan struct{}
}

func newShipper(up *Upload) *shipper {
	s := &shipper{up: up, client: httpClient(), nudge: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	s.logs = append(s.logs, &logBuffer{prefix: up.Stdout, nudge: s.nudge})
	if up.Stderr != up.Stdout {
		s.logs = append(s.logs, &logBuffer{prefix: up.Stderr, nudge: s.nudge})
	}
	return s
}

// writers: the stdout and stderr log (the same one when merged).
func (s *shipper) writers() (io.Writer, io.Writer) {
	return s.logs[0], s.logs[len(s.logs)-1]
}

func (s *shipper) start() {
	go func() {
		defer close(s.done)
		wait := 250 * time.Millisecond
		for {
			select {
			case <-s.stop:
				return
			case <-s.nudge:
			case <-time.After(wait):
				wait = 2 * time.Second
			}
			if err := s.ship(); err != nil {
				fmt.Fprintln(os.Stderr, "svc-entry: log upload failed (retried):", err)
			}
		}
	}()
}

func (s *shipper) ship() error {
	var failed error
	for _, l := range s.logs {
		data := l.take()
		if len(data) == 0 {
			continue
		}
		s.seq++
		key := fmt.Sprintf("%s%013d-%010d-%s", l.prefix, time.Now().UnixMilli(), s.seq, s.up.Writer)
		if err := s.post(key, data); err != nil {
			l.putBack(data)
			failed = err
		}
	}
	return failed
}

// finish ships what is left (retrying a few times), then the result.
func (s *shipper) finish(res Result) {
	close(s.stop)
	<-s.done
	body, _ := json.Marshal(res)
	for try, wait := 1, 500*time.Millisecond; ; try, wait = try+1, wait*2 {
		err := s.ship()
		if err == nil {
			err = s.post(s.up.Result, body)
		}
		if err == nil {
			return
		}
		if try == 5 {
			fmt.Fprintln(os.Stderr, "svc-entry: cannot upload the logs and result:", err)
			return
		}
		time.Sleep(wait)
	}
}

// post uploads one object through the POST policy: the policy's fields, the key, then the file.
func (s *shipper) post(key string, data []byte) error {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	names := make([]string, 0, len(s.up.Fields))
	for k := range s.up.Fields {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		_ = w.WriteField(k, s.up.Fields[k])
	}
	_ = w.WriteField("key", key)
	part, _ := w.CreateFormFile("file", "chunk")
	_, _ = part.Write(data)
	_ = w.Close()
	resp, err := s.client.Post(s.up.URL, w.FormDataContentType(), &body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("POST %s: HTTP %d: %s", key, resp.StatusCode, bytes.TrimSpace(msg))
	}
	return nil
}

// httpClient trusts the system's roots, else the bundle of the svc image the entry came from (a step image
// such as debian:stable-slim may have none).
func httpClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	if pool, err := x509.SystemCertPool(); err != nil || pool == nil || len(pool.Subjects()) == 0 { //nolint:staticcheck // only emptiness matters
		if exe, err := os.Executable(); err == nil {
			bundle := filepath.Join(filepath.Dir(exe), "..", "..", "..", "etc", "ssl", "certs", "ca-certificates.crt")
			if pem, err := os.ReadFile(bundle); err == nil {
				roots := x509.NewCertPool()
				roots.AppendCertsFromPEM(pem)
				t.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
			}
		}
	}
	return &http.Client{Transport: t, Timeout: 60 * time.Second}
}
