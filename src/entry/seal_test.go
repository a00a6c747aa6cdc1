package main

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func unseal(t *testing.T, key []byte, text string) string {
	t.Helper()
	if !strings.HasPrefix(text, sealPrefix) {
		t.Fatalf("not sealed: %q", text)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(text, sealPrefix))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := aes.NewCipher(key)
	gcm, _ := cipher.NewGCM(block)
	plain, err := gcm.Open(nil, raw[:gcm.NonceSize()], raw[gcm.NonceSize():], nil)
	if err != nil {
		t.Fatal(err)
	}
	return string(plain)
}

// A probe reading a secret file: the log file holds the output sealed, never as it is.
func TestSealedStdoutNeverPlainInTheLog(t *testing.T) {
	dir := t.TempDir()
	key := bytes.Repeat([]byte{7}, 32)
	t.Setenv("SVC_TEST_SEAL", base64.StdEncoding.EncodeToString(key))
	t.Setenv("SVC_TEST_COMMANDS", `[["sh","-c","printf 'file-secret-9931\\n'; echo $SVC_TEST_SEAL >&2"]]`)
	out, errLog := filepath.Join(dir, "out"), filepath.Join(dir, "err")
	o, err := parseRun([]string{"--stdout", out, "--stderr", errLog, "--quiet", "--seal-env", "SVC_TEST_SEAL", "--commands-env", "SVC_TEST_COMMANDS"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := newRunner(o, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if res := r.execute(); res.ExitCode != 0 {
		t.Fatalf("exit %d", res.ExitCode)
	}
	b, _ := os.ReadFile(out)
	if strings.Contains(string(b), "file-secret-9931") {
		t.Fatal("the secret is in the log as it is")
	}
	if got := unseal(t, key, string(b)); got != "file-secret-9931\n" {
		t.Fatalf("unsealed %q", got)
	}
	if e, _ := os.ReadFile(errLog); strings.TrimSpace(string(e)) != "" {
		t.Fatalf("the key reached the commands' environment: %q", e)
	}
}

func TestSealKeyMustBe32Bytes(t *testing.T) {
	if _, err := sealKey(base64.StdEncoding.EncodeToString([]byte("short"))); err == nil {
		t.Fatal("a short key was accepted")
	}
}
