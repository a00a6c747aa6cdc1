// Command etcd is the test bed's etcd server: the published etcd server module's own entry point,
// wrapped in a module of ours so it can be built with `go build` at a pinned version.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
