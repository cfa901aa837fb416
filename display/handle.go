package display

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
)

// idPrefix makes display ids unique across kernel processes, idCount
// within one.
var (
	idPrefix = fmt.Sprintf("graphnb-%08x", rand.Uint32())
	idCount  atomic.Uint64
)

// newID returns a fresh display id.
func newID() string { return fmt.Sprintf("%s-%d", idPrefix, idCount.Add(1)) }

// Handle is a display that can be replaced in place later, from this cell
// or a later one (Jupyter's display_id with update_display_data). Its
// methods may be called from any goroutine.
type Handle struct {
	id string
}

// NewDisplay shows v (see Render) under a fresh display id and returns
// the handle that updates it:
//
//	h := display.NewDisplay("starting…")
//	for i := range 10 { …; h.Update(fmt.Sprintf("step %d", i)) }
func NewDisplay(v any) *Handle {
	h := &Handle{id: newID()}
	publish(render(v), h.id, false)
	return h
}

// Update replaces what the handle shows with v, wherever it is displayed.
// With no sink it prints v's text form again.
func (h *Handle) Update(v any) { publish(render(v), h.id, true) }

// ID returns the display id, unique to this handle.
func (h *Handle) ID() string { return h.id }
