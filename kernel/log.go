package kernel

import (
	"io"
	"log/slog"
	"os"
	"strings"
)

// LogEnv is the environment variable that sets the kernel's log level:
// "debug", "info", "warn" (the default: rejected messages and failures,
// not the routine start and stop lines) or "error".
const LogEnv = "GRAPHNB_LOG"

// logLevel reads LogEnv.
func logLevel() slog.Level {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(LogEnv))) {
	case "debug":
		return slog.LevelDebug
	case "info":
		return slog.LevelInfo
	case "error":
		return slog.LevelError
	default:
		return slog.LevelWarn
	}
}

// newLogger returns a text logger writing to w at the level of LogEnv.
func newLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: logLevel()})).With("component", "graphnb-kernel")
}
