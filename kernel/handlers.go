package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/comm"
	"github.com/graphnb/graphnb/display"
	"github.com/graphnb/graphnb/kernel/wire"
	"github.com/graphnb/graphnb/kernel/zmtp"
)

// handle routes one request to its handler.
//
// Unknown message types: a "<name>_request" is answered with a
// "<name>_reply" of status "error" (ename "UnsupportedRequest"), so a
// client waiting for the reply does not hang; anything else is logged and
// ignored. Comm messages are served in comm.go.
func (s *server) handle(sock *zmtp.Router, channel string, m *wire.Message) {
	t := m.Header.MsgType
	if channel == "shell" && s.abort > 0 {
		s.abort--
		if t == "execute_request" {
			s.log.Info("aborting a queued execute_request after an error", "msg_id", m.Header.MsgID)
			s.reply(sock, m, "execute_reply", map[string]any{"status": "aborted", "execution_count": s.count})
			return
		}
	}
	switch t {
	case "kernel_info_request":
		s.reply(sock, m, "kernel_info_reply", s.kernelInfo())
	case "shutdown_request":
		s.handleShutdown(sock, m)
	case "interrupt_request":
		s.interrupt()
		s.reply(sock, m, "interrupt_reply", map[string]any{"status": "ok"})
	case "execute_request":
		if channel != "shell" {
			s.replyError(sock, m, "UnsupportedRequest", "execute_request belongs on the shell channel")
			return
		}
		s.handleExecute(sock, m)
	case "complete_request":
		s.handleComplete(sock, m)
	case "inspect_request":
		s.handleInspect(sock, m)
	case "is_complete_request":
		s.handleIsComplete(sock, m)
	case "history_request":
		s.handleHistory(sock, m)
	case "comm_info_request":
		s.handleCommInfo(sock, m)
	case "comm_open", "comm_msg", "comm_close":
		if channel != "shell" {
			s.log.Warn("ignoring a comm message off the shell channel", "channel", channel, "msg_type", t)
			return
		}
		s.handleComm(m)
	default:
		if name, ok := strings.CutSuffix(t, "_request"); ok {
			s.log.Warn("unsupported request", "channel", channel, "msg_type", t)
			s.reply(sock, m, name+"_reply", map[string]any{
				"status": "error", "ename": "UnsupportedRequest",
				"evalue": fmt.Sprintf("graphnb does not handle %s", t), "traceback": []string{},
			})
			return
		}
		s.log.Warn("ignoring a message of unknown type", "channel", channel, "msg_type", t)
	}
}

// replyError answers m with "<type>_reply" status error.
func (s *server) replyError(sock *zmtp.Router, m *wire.Message, ename, evalue string) {
	name := strings.TrimSuffix(m.Header.MsgType, "_request")
	s.reply(sock, m, name+"_reply", map[string]any{
		"status": "error", "ename": ename, "evalue": evalue, "traceback": []string{ename + ": " + evalue},
	})
}

// parseContent decodes m's content into v; on failure it answers with an
// error reply and returns false.
func (s *server) parseContent(sock *zmtp.Router, m *wire.Message, v any) bool {
	if err := json.Unmarshal(m.Content, v); err != nil {
		s.log.Error("malformed request content", "msg_type", m.Header.MsgType, "err", err)
		s.replyError(sock, m, "BadRequest", fmt.Sprintf("malformed %s content: %v", m.Header.MsgType, err))
		return false
	}
	return true
}

func (s *server) kernelInfo() map[string]any {
	goVersion := strings.TrimPrefix(runtime.Version(), "go")
	banner := s.opt.Banner
	if banner == "" {
		banner = fmt.Sprintf("graphnb %s: Go notebooks for graph algorithms (Go %s, interpreted by yaegi)", s.opt.Version, goVersion)
	}
	return map[string]any{
		"status":                 "ok",
		"protocol_version":       wire.Version,
		"implementation":         "graphnb",
		"implementation_version": s.opt.Version,
		"language_info":          s.eng.LanguageInfo(),
		"banner":                 banner,
		"help_links":             s.opt.HelpLinks,
	}
}

func (s *server) handleShutdown(sock *zmtp.Router, m *wire.Message) {
	var c struct {
		Restart bool `json:"restart"`
	}
	_ = json.Unmarshal(m.Content, &c) // a malformed request still shuts down
	content := map[string]any{"status": "ok", "restart": c.Restart}
	s.reply(sock, m, "shutdown_reply", content)
	// ipykernel also broadcasts the reply, for other clients.
	s.publish("shutdown_reply", m.Header, content)
}

type executeContent struct {
	Code            string         `json:"code"`
	Silent          bool           `json:"silent"`
	StoreHistory    *bool          `json:"store_history"`
	UserExpressions map[string]any `json:"user_expressions"`
	AllowStdin      bool           `json:"allow_stdin"`
	StopOnError     *bool          `json:"stop_on_error"`
}

// handleExecute runs a cell. The execution counter is incremented before
// the cell runs when store_history is true (its default unless silent;
// silent forces it false); execute_input and execute_result are not sent
// for silent cells. stop_on_error defaults to true, as in ipykernel.
func (s *server) handleExecute(sock *zmtp.Router, m *wire.Message) {
	var c executeContent
	if err := json.Unmarshal(m.Content, &c); err != nil {
		s.log.Error("malformed request content", "msg_type", m.Header.MsgType, "err", err)
		evalue := fmt.Sprintf("malformed execute_request content: %v", err)
		s.reply(sock, m, "execute_reply", map[string]any{
			"status": "error", "execution_count": s.count,
			"ename": "BadRequest", "evalue": evalue, "traceback": []string{"BadRequest: " + evalue},
		})
		return
	}
	storeHistory := !c.Silent
	if c.StoreHistory != nil && !c.Silent {
		storeHistory = *c.StoreHistory
	}
	stopOnError := c.StopOnError == nil || *c.StopOnError
	if storeHistory {
		s.count++
		s.hist.add(s.count, c.Code)
	}
	count := s.count
	s.stdinSt.asking.Store(&askState{req: m, allow: c.AllowStdin})
	defer s.stdinSt.asking.Store(nil)
	s.streams.setParent(m.Header)
	if !c.Silent {
		s.publish("execute_input", m.Header, map[string]any{"code": c.Code, "execution_count": count})
	}

	// The comms an earlier run of this cell opened are released first (see
	// comm.go).
	owner := commOwner(m)
	if owner != "" && comm.Owned(owner) > 0 {
		s.runCallback(m, func() { comm.CloseOwned(owner) })
	}

	parent := m.Header
	payload := []any{}
	cell := Cell{Count: count, Silent: c.Silent, AsyncError: func(err error) { s.asyncError(parent, err) },
		Page: func(data display.Bundle) {
			payload = append(payload, map[string]any{"source": "page", "data": data, "start": 0})
		}}
	comm.SetOwner(owner)
	bundle, err := s.run(c.Code, cell)
	comm.SetOwner("")
	s.syncOutput()

	if err != nil {
		ename, evalue, tb := errorFields(err)
		s.publish("error", m.Header, map[string]any{"ename": ename, "evalue": evalue, "traceback": tb})
		if stopOnError {
			// Only requests queued before the reply goes out are aborted:
			// count them first, or a client's next request, sent when it
			// sees the reply, could be counted too.
			s.abort = len(s.queue)
		}
		s.reply(sock, m, "execute_reply", map[string]any{
			"status": "error", "execution_count": count,
			"ename": ename, "evalue": evalue, "traceback": tb,
		})
		return
	}
	if text, ok := bundle["text/plain"].(string); ok && storeHistory {
		s.hist.setOutput(count, text)
	}
	if bundle != nil && !c.Silent {
		if err := s.publish("execute_result", m.Header, map[string]any{
			"execution_count": count, "data": bundle, "metadata": map[string]any{},
		}); err != nil {
			s.publish("stream", m.Header, map[string]any{"name": "stderr", "text": "graphnb: the cell's value cannot be shown: " + err.Error() + "\n"})
		}
	}
	s.reply(sock, m, "execute_reply", map[string]any{
		"status": "ok", "execution_count": count, "payload": payload,
		"user_expressions": s.userExpressions(c.UserExpressions, count, parent),
	})
}

// run executes code on the engine with a context the interrupt handler can
// cancel; a panic in the engine becomes an error.
func (s *server) run(code string, cell Cell) (b display.Bundle, err error) {
	err = s.interruptible(func(ctx context.Context) error {
		var err error
		b, err = s.eng.Execute(ctx, code, cell)
		return err
	})
	return b, err
}

// interruptible runs f, a cell or a comm callback, on the calling
// goroutine with the cancellation point cleared and a context that an
// interrupt cancels, serving reads of fd 0 meanwhile; a panic in f
// becomes an error.
func (s *server) interruptible(f func(ctx context.Context) error) (err error) {
	ctx, cancelRun := context.WithCancel(context.Background())
	s.runMu.Lock()
	cancel.Clear()
	s.runCancel, s.runCtx = cancelRun, ctx
	s.runMu.Unlock()
	inputDone := s.serveInput(ctx)
	defer func() {
		s.runMu.Lock()
		s.runCancel, s.runCtx = nil, nil
		s.runMu.Unlock()
		cancelRun()
		inputDone()
		if r := recover(); r != nil {
			err = &panicError{value: fmt.Sprint(r)}
		}
	}()
	return f(ctx)
}

// panicError is a panic that escaped the engine.
type panicError struct{ value string }

func (e *panicError) Error() string       { return "panic: " + e.value }
func (e *panicError) EName() string       { return "panic" }
func (e *panicError) EValue() string      { return e.value }
func (e *panicError) Traceback() []string { return []string{"panic: " + e.value} }

// errorFields returns the Jupyter error fields of err: a CellError's own,
// else ename "Error" and the message.
func errorFields(err error) (ename, evalue string, traceback []string) {
	var ce CellError
	if errors.As(err, &ce) {
		ename, evalue, traceback = ce.EName(), ce.EValue(), ce.Traceback()
	} else {
		ename, evalue = "Error", err.Error()
	}
	if len(traceback) == 0 {
		traceback = []string{ename + ": " + evalue}
	}
	return ename, evalue, traceback
}

// userExpressions evaluates each expression silently (after a successful
// cell) and returns the per-expression results of execute_reply.
func (s *server) userExpressions(exprs map[string]any, count int, parent wire.Header) map[string]any {
	out := map[string]any{}
	names := make([]string, 0, len(exprs))
	for name := range exprs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		code, ok := exprs[name].(string)
		if !ok {
			out[name] = map[string]any{"status": "error", "ename": "BadRequest",
				"evalue": "the expression is not a string", "traceback": []string{}}
			continue
		}
		b, err := s.run(code, Cell{Count: count, Silent: true, AsyncError: func(err error) { s.asyncError(parent, err) }})
		if err != nil {
			ename, evalue, tb := errorFields(err)
			out[name] = map[string]any{"status": "error", "ename": ename, "evalue": evalue, "traceback": tb}
			continue
		}
		if b == nil {
			b = display.Bundle{}
		}
		out[name] = map[string]any{"status": "ok", "data": b, "metadata": map[string]any{}}
	}
	s.syncOutput()
	return out
}

// asyncError publishes a failure reported after a cell returned.
func (s *server) asyncError(parent wire.Header, err error) {
	if err == nil {
		return
	}
	s.syncOutput()
	ename, evalue, tb := errorFields(err)
	s.publish("error", parent, map[string]any{"ename": ename, "evalue": evalue, "traceback": tb})
}

// cursorPos returns the cursor of a completion or inspection request: the
// given position, or the end of code when absent (in code points).
func cursorPos(code string, pos *int) int {
	n := utf8.RuneCountInString(code)
	if pos == nil || *pos > n {
		return n
	}
	return max(*pos, 0)
}

func (s *server) handleComplete(sock *zmtp.Router, m *wire.Message) {
	var c struct {
		Code      string `json:"code"`
		CursorPos *int   `json:"cursor_pos"`
	}
	if !s.parseContent(sock, m, &c) {
		return
	}
	cursor := cursorPos(c.Code, c.CursorPos)
	matches, start, end := s.eng.Complete(c.Code, cursor)
	if matches == nil {
		matches = []string{}
		start, end = cursor, cursor
	}
	s.reply(sock, m, "complete_reply", map[string]any{
		"status": "ok", "matches": matches, "cursor_start": start, "cursor_end": end, "metadata": map[string]any{},
	})
}

func (s *server) handleInspect(sock *zmtp.Router, m *wire.Message) {
	var c struct {
		Code        string `json:"code"`
		CursorPos   *int   `json:"cursor_pos"`
		DetailLevel int    `json:"detail_level"`
	}
	if !s.parseContent(sock, m, &c) {
		return
	}
	data, found := s.eng.Inspect(c.Code, cursorPos(c.Code, c.CursorPos), c.DetailLevel)
	if data == nil || !found {
		data = display.Bundle{}
	}
	s.reply(sock, m, "inspect_reply", map[string]any{
		"status": "ok", "found": found, "data": data, "metadata": map[string]any{},
	})
}

func (s *server) handleIsComplete(sock *zmtp.Router, m *wire.Message) {
	var c struct {
		Code string `json:"code"`
	}
	if !s.parseContent(sock, m, &c) {
		return
	}
	status, indent := s.eng.IsComplete(c.Code)
	content := map[string]any{"status": status}
	if status == "incomplete" {
		content["indent"] = indent
	}
	s.reply(sock, m, "is_complete_reply", content)
}

// handleHistory answers from this process's history (raw and processed
// inputs are the same).
func (s *server) handleHistory(sock *zmtp.Router, m *wire.Message) {
	var c historyRequest
	if !s.parseContent(sock, m, &c) {
		return
	}
	s.reply(sock, m, "history_reply", map[string]any{"status": "ok", "history": s.hist.query(c)})
}
