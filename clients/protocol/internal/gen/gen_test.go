package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGeneratedFilesUpToDate regenerates package protocol's codecs in memory and compares them
// with the checked-in files, so a schema edit without `go generate` fails CI.
func TestGeneratedFilesUpToDate(t *testing.T) {
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..")
	onDisk, err := filepath.Glob(filepath.Join(dir, "zz_generated_*.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(onDisk) != len(files) {
		t.Errorf("%d generated files on disk, generator writes %d; run go generate ./clients/protocol/...", len(onDisk), len(files))
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v; run go generate ./clients/protocol/...", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale; run go generate ./clients/protocol/...", name)
		}
	}
}

// TestWriteFilesIdempotent checks writeFiles into a temporary directory reproduces generate's output
// and removes stale generated files.
func TestWriteFilesIdempotent(t *testing.T) {
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	stale := filepath.Join(dir, "zz_generated_99_gone.go")
	if err := os.WriteFile(stale, []byte("package protocol\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeFiles(dir, files); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale file kept: %v", err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s not written as generated (%v)", name, err)
		}
	}
}

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{"topic_data": "TopicData", "node_id": "NodeID", "isr": "Isr", "throttle_time_ms": "ThrottleTimeMs"} {
		if got := goName(in); got != want {
			t.Errorf("goName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRoleOverrides: the override column names nested structs by role (parent name + role), and
// a row that names no nested struct fails the generation.
func TestRoleOverrides(t *testing.T) {
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	src := string(files["zz_generated_19_create_topics.go"])
	for _, want := range []string{`type CreateTopicsRequestTopic struct`, `CreateTopicRequests +\[\]CreateTopicsRequestTopic `,
		`ReplicaAssignment +\[\]CreateTopicsRequestTopicReplicaAssignment `, `Configs +\[\]CreateTopicsRequestTopicConfig `,
		`TopicErrors +\[\]CreateTopicsResponseTopic `} {
		if !regexp.MustCompile(want).MatchString(src) {
			t.Errorf("create_topics does not match %q", want)
		}
	}
	saved := apis[19].roles
	defer func() { apis[19].roles = saved }()
	apis[19].roles = roles{"CreateTopicsRequest.CreateTopicRequests": "Topic", "CreateTopicsRequest.NoSuchField": "X"}
	if _, err := generate(); err == nil || !strings.Contains(err.Error(), "CreateTopicsRequest.NoSuchField") {
		t.Errorf("a stale role row was accepted: %v", err)
	}
	apis[19].roles = nil
	files, err = generate()
	if err != nil || !strings.Contains(string(files["zz_generated_19_create_topics.go"]), "type CreateTopicsRequestCreateTopicRequests struct") {
		t.Errorf("without rows the default rule applies: %v", err)
	}
}
