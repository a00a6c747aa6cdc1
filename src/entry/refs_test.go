package main

import (
	"encoding/json"
	"strings"
	"testing"
)

var refEnv = map[string]string{"SVC_SECRET_REF_0": "s3cr\"et\nvalue", "SVC_SECRET_REF_1": "other"}

func lookupIn(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func request(t *testing.T, body string) Request {
	t.Helper()
	var req Request
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	return req
}

func TestRequestReferencesResolveFromTheAgentsEnvironment(t *testing.T) {
	req := request(t, `{"id":"x","stdout":"/o","commands":[["sh","-c",["echo ",{"ref":"SVC_SECRET_REF_0"}," and ",{"ref":"SVC_SECRET_REF_1"}]]],
		"script":["#!/bin/sh\n",{"ref":"SVC_SECRET_REF_1"}],"scriptArg":-1,
		"masks":[[{"ref":"SVC_SECRET_REF_0"}],[{"ref":"SVC_SECRET_REF_1"}]],
		"env":{"TOKEN":[{"ref":"SVC_SECRET_REF_0"}],"PLAIN":"just text","LOOKS":"{\"ref\":\"SVC_SECRET_REF_0\"}"}}`)
	environ := []string{"PATH=/bin", "SVC_SECRET_REF_0=s3cr\"et\nvalue", "SVC_SECRET_REF_1=other"}
	o, err := req.resolve(lookupIn(refEnv), environ)
	if err != nil {
		t.Fatal(err)
	}
	if got := o.Commands[0][2]; got != "echo s3cr\"et\nvalue and other" {
		t.Errorf("command word %q", got)
	}
	if o.Script != "#!/bin/sh\nother" {
		t.Errorf("script %q", o.Script)
	}
	if strings.Join(o.Masks, "|") != "s3cr\"et\nvalue|other" {
		t.Errorf("masks %q", o.Masks)
	}
	env := map[string]string{}
	for _, kv := range o.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	if env["TOKEN"] != "s3cr\"et\nvalue" || env["PLAIN"] != "just text" || env["PATH"] != "/bin" {
		t.Errorf("env %q", o.Env)
	}
	// A string that looks like a reference is the user's text, never resolved.
	if env["LOOKS"] != `{"ref":"SVC_SECRET_REF_0"}` {
		t.Errorf("user text resolved: %q", env["LOOKS"])
	}
	for k := range env {
		if strings.HasPrefix(k, refPrefix) {
			t.Errorf("the step inherits the agent's reference variable %s", k)
		}
	}
}

func TestRequestReferenceOutsideTheSecretVariablesIsRefused(t *testing.T) {
	req := request(t, `{"id":"x","commands":[["echo",[{"ref":"HOME"}]]]}`)
	if _, err := req.resolve(lookupIn(map[string]string{"HOME": "/root"}), nil); err == nil || !strings.Contains(err.Error(), "not a secret reference") {
		t.Fatalf("err %v", err)
	}
}

func TestRequestReferenceMissingFails(t *testing.T) {
	req := request(t, `{"id":"x","commands":[["echo"]],"env":{"T":[{"ref":"SVC_SECRET_REF_9"}]}}`)
	if _, err := req.resolve(lookupIn(refEnv), nil); err == nil || !strings.Contains(err.Error(), "SVC_SECRET_REF_9") {
		t.Fatalf("err %v", err)
	}
}

func TestRequestTextMalformedPartsAreRejected(t *testing.T) {
	for _, body := range []string{
		`{"id":"x","commands":[["echo",[{"ref":"SVC_SECRET_REF_0","x":1}]]]}`,
		`{"id":"x","commands":[["echo",[{"value":"a"}]]]}`,
		`{"id":"x","commands":[["echo",[1]]]}`,
		`{"id":"x","commands":[["echo",{"ref":"SVC_SECRET_REF_0"}]]}`,
	} {
		var req Request
		if err := json.Unmarshal([]byte(body), &req); err == nil {
			t.Errorf("accepted %s", body)
		}
	}
}
