package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// The cases the engine's masker runs too (src/core/vars/mask-cases.test.ts): the two must agree.
const casesFile = "../../test/fixtures/masking-cases.json"

type maskCase struct {
	Name     string   `json:"name"`
	Text     string   `json:"text"`
	Secrets  []string `json:"secrets"`
	Expected string   `json:"expected"`
}

func loadCases(t *testing.T) []maskCase {
	t.Helper()
	b, err := os.ReadFile(casesFile)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []maskCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) == 0 {
		t.Fatal("no masking cases")
	}
	return f.Cases
}

func TestMaskAllSharedCases(t *testing.T) {
	for _, c := range loadCases(t) {
		if got := string(maskAll([]byte(c.Text), c.Secrets)); got != c.Expected {
			t.Errorf("%s: maskAll(%q, %q) = %q, want %q", c.Name, c.Text, c.Secrets, got, c.Expected)
		}
	}
}

func streamed(chunks [][]byte, secrets []string) string {
	m := newMasker(secrets)
	var out []byte
	for _, c := range chunks {
		out = append(out, m.push(c)...)
	}
	return string(append(out, m.flush()...))
}

func TestMaskerSharedCasesInChunks(t *testing.T) {
	for _, c := range loadCases(t) {
		text := []byte(c.Text)
		for size := 1; size <= len(text); size++ {
			var chunks [][]byte
			for i := 0; i < len(text); i += size {
				chunks = append(chunks, text[i:min(i+size, len(text))])
			}
			if got := streamed(chunks, c.Secrets); got != c.Expected {
				t.Errorf("%s, chunks of %d: %q, want %q", c.Name, size, got, c.Expected)
			}
		}
		for i := 0; i <= len(text); i++ {
			if got := streamed([][]byte{text[:i], text[i:]}, c.Secrets); got != c.Expected {
				t.Errorf("%s, split at %d: %q, want %q", c.Name, i, got, c.Expected)
			}
		}
	}
}

// The Tee masks what it passes through and what it logs, whatever the reads and lines.
func TestTeeSharedCases(t *testing.T) {
	for _, c := range loadCases(t) {
		for _, maxLine := range []int{1, 3, 64 * 1024} {
			var pass, file bytes.Buffer
			tee := newTee(&pass, &file, c.Secrets, maxLine)
			for i := 0; i < len(c.Text); i += 2 {
				_, _ = tee.Write([]byte(c.Text[i:min(i+2, len(c.Text))]))
			}
			tee.Flush()
			if pass.String() != c.Expected || file.String() != c.Expected {
				t.Errorf("%s, max line %d: pass %q, file %q, want %q", c.Name, maxLine, pass.String(), file.String(), c.Expected)
			}
		}
	}
}

func TestMaskerHoldsBackAtMostLongestMinusOne(t *testing.T) {
	m := newMasker([]string{"abcde", "xy"})
	if got := string(m.push([]byte("0123456789"))); got != "012345" {
		t.Fatalf("push: %q", got)
	}
	if got := string(m.flush()); got != "6789" {
		t.Fatalf("flush: %q", got)
	}
}

func TestMasksFromEnvKeepsNewlinesAndQuotes(t *testing.T) {
	t.Setenv("SVC_TEST_MASKS", `["p\"a\\ss\nw0rd","x"]`)
	got, err := masksFromEnv("SVC_TEST_MASKS")
	if err != nil || len(got) != 2 || got[0] != "p\"a\\ss\nw0rd" || got[1] != "x" {
		t.Fatalf("masksFromEnv: %q, %v", got, err)
	}
	t.Setenv("SVC_TEST_MASKS", "a\nb")
	if _, err := masksFromEnv("SVC_TEST_MASKS"); err == nil {
		t.Fatal("a list that is not JSON was accepted")
	}
}

func TestCommandsFromEnvStayOutOfTheCommandsEnv(t *testing.T) {
	t.Setenv("SVC_TEST_COMMANDS", `[["echo","s3cr3t"]]`)
	o, err := parseRun([]string{"--commands-env", "SVC_TEST_COMMANDS"})
	if err != nil || len(o.Commands) != 1 || o.Commands[0][1] != "s3cr3t" {
		t.Fatalf("parseRun: %v, %v", o, err)
	}
	for _, kv := range o.Env {
		if strings.HasPrefix(kv, "SVC_TEST_COMMANDS=") {
			t.Fatal("the command list is in the commands' environment")
		}
	}
}
