package plots

// ResetStyles lets the examples' golden test start from a fresh
// notebook's styles.
var ResetStyles = resetStyles
