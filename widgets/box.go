package widgets

import (
	"fmt"
	"slices"
	"strconv"
)

var (
	kindHBox      = &kind{name: "HBox", model1: "HBoxModel", view1: "HBoxView", model2: "HBoxModel", view2: "HBoxView", module2: controlsModule, layout: true}
	kindVBox      = &kind{name: "VBox", model1: "VBoxModel", view1: "VBoxView", model2: "VBoxModel", view2: "VBoxView", module2: controlsModule, layout: true}
	kindAccordion = &kind{name: "Accordion", model1: "AccordionModel", view1: "AccordionView", model2: "AccordionModel", view2: "AccordionView", module2: controlsModule, layout: true}
	kindTab       = &kind{name: "Tab", model1: "TabModel", view1: "TabView", model2: "TabModel", view2: "TabView", module2: controlsModule, layout: true}
)

// Box lays out other widgets: in a row (HBox), a column (VBox), or as
// titled pages one of which is open (Accordion, Tab). Closing a box does
// not close its children (they may be shown elsewhere too), except the
// widgets Interact made for it.
type Box struct {
	base
	children []Widget
	titles   []string
	selected int
	w        watchers[int]
}

func newBox(k *kind, titles []string, children []Widget) *Box {
	b := &Box{children: slices.Clone(children), titles: slices.Clone(titles)}
	for i, c := range children {
		if unopened(c) {
			report("%s: child %d is nil; it is left out", k.name, i)
		}
	}
	b.children = slices.DeleteFunc(b.children, func(c Widget) bool { return unopened(c) })
	b.open(k, b)
	return b
}

// NewHBox lays children out in a row.
func NewHBox(children ...Widget) *Box { return newBox(kindHBox, nil, children) }

// NewVBox lays children out in a column.
func NewVBox(children ...Widget) *Box { return newBox(kindVBox, nil, children) }

// NewAccordion shows children as collapsible sections titled titles (in
// order; missing titles are empty), the first one open.
func NewAccordion(titles []string, children ...Widget) *Box {
	return newBox(kindAccordion, titles, children)
}

// NewTab shows children as tabs titled titles, the first one selected.
func NewTab(titles []string, children ...Widget) *Box { return newBox(kindTab, titles, children) }

// pages reports whether b has titled pages (Accordion, Tab).
func (b *Box) pages() bool { return b.k == kindAccordion || b.k == kindTab }

func (b *Box) syncState(p Protocol) map[string]any {
	refs := make([]string, len(b.children))
	for i, c := range b.children {
		refs[i] = ref(c.core())
	}
	st := map[string]any{"children": refs, "box_style": ""}
	if !b.pages() {
		return st
	}
	if p == Protocol1 {
		titles := map[string]any{}
		for i, t := range b.titles {
			if i < len(b.children) {
				titles[strconv.Itoa(i)] = t
			}
		}
		st["_titles"] = titles
	} else {
		titles := make([]string, len(b.children))
		copy(titles, b.titles)
		st["titles"] = titles
	}
	if len(b.children) > 0 {
		st["selected_index"] = b.selected
	} else {
		st["selected_index"] = nil
	}
	return st
}

func (b *Box) applyState(st map[string]any) ([]string, func(), error) {
	x, ok := st["selected_index"]
	if !ok || !b.pages() {
		return nil, nil, nil
	}
	if x == nil { // an accordion with every section collapsed
		return nil, nil, nil
	}
	i, err := asInt(x)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil || i < 0 || i >= len(b.children) {
		return []string{"selected_index"}, nil, fmt.Errorf("selected_index %v refused: there are %d pages", x, len(b.children))
	}
	old := b.selected
	b.selected = i
	if old == i {
		return nil, nil, nil
	}
	return nil, firing(&b.base, &b.w, old, i), nil
}

func (b *Box) dropCallbacks() { b.mu.Lock(); b.w.dropCallbacks(); b.mu.Unlock() }

// Children returns the widgets in the box.
func (b *Box) Children() []Widget {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.children)
}

// SetChildren replaces the widgets in the box.
func (b *Box) SetChildren(children ...Widget) {
	children = slices.DeleteFunc(slices.Clone(children), func(c Widget) bool { return unopened(c) })
	b.mu.Lock()
	b.children = children
	if b.selected >= len(children) {
		b.selected = 0
	}
	b.mu.Unlock()
	b.send("children", "selected_index", "titles", "_titles")
}

// SelectedIndex returns the open page of an Accordion or Tab.
func (b *Box) SelectedIndex() int { return get(&b.base, &b.selected) }

// SetSelectedIndex opens page i of an Accordion or Tab; an index out of
// range is refused with an error.
func (b *Box) SetSelectedIndex(i int) error {
	b.mu.Lock()
	n := len(b.children)
	b.mu.Unlock()
	if i < 0 || i >= n {
		return fmt.Errorf("widgets: %s: page %d does not exist (it has %d)", b.k.name, i, n)
	}
	set(&b.base, &b.w, &b.selected, i, "selected_index")
	return nil
}

// OnSelect adds f, called with the old and new page index when the user
// opens another page of an Accordion or Tab.
func (b *Box) OnSelect(f func(old, new int)) { onChange(&b.base, &b.w, f) }
