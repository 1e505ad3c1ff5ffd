package protocol

//go:generate go run ./internal/gen -out .
