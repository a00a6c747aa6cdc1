package main

// Secret references in an agent's request (ADR 0028): the operator writes no secret value to the data
// volume. The run container's Pod gets every value, in each form svc writes it, as an env var named
// SVC_SECRET_REF_<n> (from the run's Kubernetes Secret); a request's text that held a value is instead a
// list of parts, each a literal string or {"ref": "SVC_SECRET_REF_<n>"}, which the agent puts together
// from its own environment. Structure rather than an in-band syntax: no user text can be taken for a
// reference. The reference variables are the agent's: a step's process never inherits them.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

const refPrefix = "SVC_SECRET_REF_"

type part struct {
	text string
	ref  string
}

// Text is a JSON string, or an array of parts (a string, or {"ref": NAME}).
type Text struct {
	parts []part
}

func (t *Text) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		t.parts = []part{{text: s}}
		return nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return errors.New("a request text is neither a string nor a list of parts")
	}
	t.parts = make([]part, 0, len(raw))
	for _, r := range raw {
		var lit string
		if err := json.Unmarshal(r, &lit); err == nil {
			t.parts = append(t.parts, part{text: lit})
			continue
		}
		var ref struct {
			Ref *string `json:"ref"`
		}
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ref); err != nil || ref.Ref == nil {
			return errors.New("a request text's part is neither a string nor {\"ref\": NAME}")
		}
		t.parts = append(t.parts, part{ref: *ref.Ref})
	}
	return nil
}

// resolve puts the text together; a reference must name a reference variable the agent has.
func (t Text) resolve(lookup func(string) (string, bool)) (string, error) {
	var b strings.Builder
	for _, p := range t.parts {
		if p.ref == "" {
			b.WriteString(p.text)
			continue
		}
		if !strings.HasPrefix(p.ref, refPrefix) {
			return "", fmt.Errorf("the reference %q is not a secret reference", p.ref)
		}
		v, ok := lookup(p.ref)
		if !ok {
			return "", fmt.Errorf("the secret reference %s is not in the container's environment (was the run's container started before the secret was known?)", p.ref)
		}
		b.WriteString(v)
	}
	return b.String(), nil
}

func resolveAll(ts []Text, lookup func(string) (string, bool)) ([]string, error) {
	out := make([]string, len(ts))
	for i, t := range ts {
		v, err := t.resolve(lookup)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// inherited: the agent's environment as a step's process gets it, without the reference variables.
func inherited(environ []string) map[string]string {
	env := map[string]string{}
	for _, kv := range environ {
		if i := strings.IndexByte(kv, '='); i > 0 && !strings.HasPrefix(kv[:i], refPrefix) {
			env[kv[:i]] = kv[i+1:]
		}
	}
	return env
}
