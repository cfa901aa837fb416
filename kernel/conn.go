package kernel

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/graphnb/graphnb/kernel/wire"
)

// ConnectionInfo is the content of a Jupyter connection file.
type ConnectionInfo struct {
	Transport       string `json:"transport"`
	IP              string `json:"ip"`
	ShellPort       int    `json:"shell_port"`
	IOPubPort       int    `json:"iopub_port"`
	StdinPort       int    `json:"stdin_port"`
	ControlPort     int    `json:"control_port"`
	HBPort          int    `json:"hb_port"`
	Key             string `json:"key"`
	SignatureScheme string `json:"signature_scheme"`
	KernelName      string `json:"kernel_name"`
}

// ReadConnectionFile reads and checks the connection file the client wrote
// (the CONNECTION_FILE argument of `graphnb kernel`). The transport must be
// "tcp", ip a literal address (or "*"), every port within 1–65535, and
// signature_scheme "hmac-sha256" (empty means that scheme). Errors name
// the file and the field at fault.
func ReadConnectionFile(path string) (ConnectionInfo, error) {
	var ci ConnectionInfo
	b, err := os.ReadFile(path)
	if err != nil {
		return ci, fmt.Errorf("kernel: reading the connection file: %w", err)
	}
	if err := json.Unmarshal(b, &ci); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return ci, fmt.Errorf("kernel: connection file %s: field %q: a JSON %s where %s was expected", path, te.Field, te.Value, te.Type)
		}
		return ci, fmt.Errorf("kernel: connection file %s is not valid JSON: %w", path, err)
	}
	if err := ci.check(false); err != nil {
		return ci, fmt.Errorf("kernel: connection file %s: %w", path, err)
	}
	return ci, nil
}

// check validates ci; with anyPort, port 0 (pick a free port) is allowed.
func (ci ConnectionInfo) check(anyPort bool) error {
	if ci.Transport != "tcp" {
		if ci.Transport == "" {
			return errors.New(`field "transport" is missing; want "tcp"`)
		}
		return fmt.Errorf(`field "transport" is %q; only "tcp" is supported`, ci.Transport)
	}
	if ci.IP == "" {
		return errors.New(`field "ip" is missing`)
	}
	if ci.IP != "*" && net.ParseIP(ci.IP) == nil {
		return fmt.Errorf(`field "ip" is %q, not an IP address`, ci.IP)
	}
	lo := 1
	if anyPort {
		lo = 0
	}
	for _, p := range []struct {
		name string
		port int
	}{
		{"shell_port", ci.ShellPort}, {"iopub_port", ci.IOPubPort}, {"stdin_port", ci.StdinPort},
		{"control_port", ci.ControlPort}, {"hb_port", ci.HBPort},
	} {
		if p.port < lo || p.port > 65535 {
			if p.port == 0 {
				return fmt.Errorf("field %q is missing or 0", p.name)
			}
			return fmt.Errorf("field %q is %d, outside 1–65535", p.name, p.port)
		}
	}
	if _, err := wire.NewSigner(ci.SignatureScheme, ci.Key); err != nil {
		return fmt.Errorf(`field "signature_scheme": %w`, err)
	}
	return nil
}

// listenAddr returns the address to bind port on ci.IP ("*": every
// interface).
func (ci ConnectionInfo) listenAddr(port int) string {
	ip := ci.IP
	if ip == "*" {
		ip = ""
	}
	return net.JoinHostPort(ip, strconv.Itoa(port))
}
