package kernel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadConnectionFile(t *testing.T) {
	valid := `{"shell_port": 51001, "iopub_port": 51002, "stdin_port": 51003, "control_port": 51004,
		"hb_port": 51005, "ip": "127.0.0.1", "key": "a0436f6c-1916-498b-8eb9-e81ab9368e84",
		"transport": "tcp", "signature_scheme": "hmac-sha256", "kernel_name": "graphnb"}`
	tests := []struct {
		name    string
		content string
		wantErr string // substring; "" means success
	}{
		{"valid", valid, ""},
		{"no key: signing disabled", strings.Replace(valid, `"a0436f6c-1916-498b-8eb9-e81ab9368e84"`, `""`, 1), ""},
		{"not JSON", `{"shell_port": `, "not valid JSON"},
		{"port of wrong type", strings.Replace(valid, `"shell_port": 51001`, `"shell_port": "51001"`, 1), `"shell_port"`},
		{"missing port", strings.Replace(valid, `"hb_port": 51005,`, ``, 1), `"hb_port" is missing`},
		{"port out of range", strings.Replace(valid, `51004`, `70000`, 1), `"control_port" is 70000`},
		{"ipc transport", strings.Replace(valid, `"tcp"`, `"ipc"`, 1), `only "tcp"`},
		{"missing transport", strings.Replace(valid, `"transport": "tcp",`, ``, 1), `"transport" is missing`},
		{"bad ip", strings.Replace(valid, `"127.0.0.1"`, `"localhost"`, 1), `"ip" is "localhost"`},
		{"unsupported scheme", strings.Replace(valid, `hmac-sha256`, `hmac-sha512`, 1), `hmac-sha512`},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			ci, err := ReadConnectionFile(path)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if ci.ShellPort != 51001 || ci.HBPort != 51005 || ci.IP != "127.0.0.1" || ci.KernelName != "graphnb" {
					t.Errorf("parsed %+v", ci)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %v; want one naming the file and containing %q", err, tc.wantErr)
			}
		})
	}
	if _, err := ReadConnectionFile(filepath.Join(dir, "absent.json")); err == nil || !strings.Contains(err.Error(), "absent.json") {
		t.Errorf("missing file: %v", err)
	}
}
