// svc-entry: PID 1 of a step container (ARCHITECTURE "Kubernetes execution", ADR 0013).
//
//	svc-entry run [flags]   runs the step's commands in order (stopping at the first failure), with stdout
//	                        and stderr kept apart: each is passed through to the container's own stream (so
//	                        `kubectl logs` works) and appended to its log file while the step runs; signals
//	                        are forwarded; the outcome is written to the result file before exiting with
//	                        the step's exit code.
//	svc-entry agent --dir D runs the steps of a run-scoped container as they are asked for (agent.go).
//	svc-entry copy DEST     copies this binary to DEST (the init-container way of delivering it).
//
// Static, standard library only: it runs in any image, without a shell or Node there.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fail("usage: svc-entry run [flags] | svc-entry agent --dir DIR | svc-entry copy DEST")
	}
	switch os.Args[1] {
	case "run":
		opts, err := parseRun(os.Args[2:])
		if err != nil {
			fail(err.Error())
		}
		os.Exit(run(opts))
	case "agent":
		os.Exit(runAgent(os.Args[2:]))
	case "copy":
		if len(os.Args) != 3 {
			fail("usage: svc-entry copy DEST")
		}
		if err := copySelf(os.Args[2]); err != nil {
			fail(err.Error())
		}
	default:
		fail(fmt.Sprintf("unknown command %q", os.Args[1]))
	}
}

// Exit 64 for the entry's own failures, as the step's commands never had a chance to run.
func fail(msg string) {
	fmt.Fprintln(os.Stderr, "svc-entry:", msg)
	os.Exit(64)
}
