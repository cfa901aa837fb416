package typedata

//go:generate go run ./gen -o exports.gz
