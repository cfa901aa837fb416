package kernel_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/graphnb/graphnb/kernel"
)

func ExampleReadConnectionFile() {
	dir, _ := os.MkdirTemp("", "graphnb-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "kernel-1.json")
	os.WriteFile(path, []byte(`{"transport": "tcp", "ip": "127.0.0.1", "shell_port": 50001,
		"iopub_port": 50002, "stdin_port": 50003, "control_port": 50004, "hb_port": 50005,
		"key": "secret", "signature_scheme": "hmac-sha256", "kernel_name": "graphnb"}`), 0o600)

	ci, err := kernel.ReadConnectionFile(path)
	fmt.Println(ci.IP, ci.ShellPort, ci.HBPort, err)

	os.WriteFile(path, []byte(`{"transport": "ipc", "ip": "127.0.0.1"}`), 0o600)
	_, err = kernel.ReadConnectionFile(path)
	fmt.Println(err != nil)
	// Output:
	// 127.0.0.1 50001 50005 <nil>
	// true
}
