package main

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"io"
	"sync"
)

// A probe whose output is a secret (a `file` secret's content) must not leave it in the log store
// (a shared volume, a bucket): its stdout is sealed there instead, AES-256-GCM with a key the operator
// made for this execution alone and passed through the execution's Secret. The log store holds
// sealPrefix + base64(nonce || ciphertext || tag), written once when the commands end.
const sealPrefix = "svc-sealed:v1:"

// sealKey decodes the key (base64 of 32 bytes).
func sealKey(text string) ([]byte, error) {
	k, err := base64.StdEncoding.DecodeString(text)
	if err != nil || len(k) != 32 {
		return nil, errors.New("--seal-env: not a base64 key of 32 bytes")
	}
	return k, nil
}

func seal(key, plain []byte) ([]byte, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	sealed := gcm.Seal(nonce, nonce, plain, nil)
	return []byte(sealPrefix + base64.StdEncoding.EncodeToString(sealed)), nil
}

// A sealedLog keeps what is written in memory and writes it, sealed, to the log once closed.
type sealedLog struct {
	mu   sync.Mutex
	key  []byte
	to   io.Writer
	data bytes.Buffer
}

func (s *sealedLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.data.Write(p)
}

// close writes the sealed text; nothing at all when it cannot seal (the output is lost, never shown).
func (s *sealedLog) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if out, err := seal(s.key, s.data.Bytes()); err == nil {
		_, _ = s.to.Write(out)
	}
	s.data.Reset()
}
