package integration

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/producer"
	"github.com/zkafka/zkafka/clients/serialization"
)

// partitionKeys are 10,000 printable keys of 1 to 40 bytes (no tab, no newline: kcat reads them
// from lines), from a fixed seed.
func partitionKeys() [][]byte {
	r := rand.New(rand.NewPCG(14, 2))
	keys := make([][]byte, 10_000)
	for i := range keys {
		k := make([]byte, 1+r.IntN(40))
		for j := range k {
			k[j] = byte(33 + r.IntN(94)) // '!'..'~'
		}
		keys[i] = k
	}
	return keys
}

func javaPartition(key []byte, n int32) int32 { return common.ToPositive(common.Murmur2(key)) % n }

// kafka-python's DefaultPartitioner (murmur2 & 0x7fffffff % partitions) agrees with ours on
// 10,000 keys, for several partition counts.
func TestMurmur2AgreesWithKafkaPython(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import kafka").Run(); err != nil {
		t.Skip("kafka-python not installed")
	}
	keys := partitionKeys()
	var in bytes.Buffer
	for _, k := range keys {
		in.WriteString(hex.EncodeToString(k) + "\n")
	}
	script := `
import sys, binascii
from kafka.partitioner.default import DefaultPartitioner, murmur2
p = DefaultPartitioner()
for line in sys.stdin:
    k = binascii.unhexlify(line.strip())
    print(murmur2(k), *[p(k, list(range(n)), list(range(n))) for n in (3, 7, 16, 100)])
`
	cmd := exec.Command("/usr/bin/python3", "-c", script)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(keys) {
		t.Fatalf("%d lines for %d keys", len(lines), len(keys))
	}
	for i, l := range lines {
		f := strings.Fields(l)
		h, _ := strconv.ParseUint(f[0], 10, 32)
		if int32(uint32(h)) != common.Murmur2(keys[i]) {
			t.Fatalf("key %q: kafka-python murmur2 %s, ours %d", keys[i], f[0], common.Murmur2(keys[i]))
		}
		for j, n := range []int32{3, 7, 16, 100} {
			if f[j+1] != strconv.Itoa(int(javaPartition(keys[i], n))) {
				t.Fatalf("key %q with %d partitions: kafka-python %s, ours %d", keys[i], n, f[j+1], javaPartition(keys[i], n))
			}
		}
	}
}

// kcat (librdkafka's murmur2_random partitioner) and KafkaProducer put each of 10,000 keys in
// the same partition of a 7-partition topic, the one Kafka's Java DefaultPartitioner picks.
func TestKeyedPartitionsAgreeWithKcat(t *testing.T) {
	if _, err := exec.LookPath("kcat"); err != nil {
		t.Skip("kcat not installed")
	}
	b := startTestBroker(t, nil)
	const parts = 7
	b.createTopic(t, "murmur-kcat", parts, nil)
	b.createTopic(t, "murmur-zkafka", parts, nil)
	keys := partitionKeys()

	input := filepath.Join(t.TempDir(), "keys")
	var lines bytes.Buffer
	for i, k := range keys {
		fmt.Fprintf(&lines, "%s\t%d\n", k, i)
	}
	if err := os.WriteFile(input, lines.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	prod := exec.CommandContext(within(t, 2*time.Minute), "kcat", "-P", "-b", b.addr, "-t", "murmur-kcat", "-K", "\t",
		"-X", "topic.partitioner=murmur2_random", "-l", input)
	prod.Stderr = &stderr
	if err := prod.Run(); err != nil {
		t.Fatalf("kcat -P: %v: %s", err, stderr.String())
	}
	// Where kcat put each key (the value is the key's index).
	kcatPart := make([]int32, len(keys))
	for p := int32(0); p < parts; p++ {
		cmd := exec.CommandContext(within(t, time.Minute), "kcat", "-C", "-b", b.addr, "-t", "murmur-kcat", "-p", strconv.Itoa(int(p)),
			"-o", "beginning", "-e", "-f", `%s\n`)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			i, err := strconv.Atoi(sc.Text())
			if err != nil {
				t.Fatal(err)
			}
			kcatPart[i] = p + 1 // 0 = not seen
		}
	}
	p, err := producer.NewKafkaProducer[[]byte, []byte](map[string]string{"bootstrap.servers": b.addr, "linger.ms": "5"},
		serialization.ByteArraySerializer{}, serialization.ByteArraySerializer{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(10 * time.Second) //nolint:errcheck
	futs := make([]*producer.FutureRecordMetadata, len(keys))
	for i, k := range keys {
		if futs[i], err = p.Send(producer.NewProducerRecord("murmur-zkafka", k, []byte(strconv.Itoa(i))), nil); err != nil {
			t.Fatal(err)
		}
	}
	counts := map[int32]int{}
	for i, f := range futs {
		md, err := f.Get(within(t, time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		want := javaPartition(keys[i], parts)
		if kcatPart[i] != want+1 || md.Partition != want {
			t.Fatalf("key %q: Java's partition %d, kcat's %d, KafkaProducer's %d", keys[i], want, kcatPart[i]-1, md.Partition)
		}
		counts[md.Partition]++
	}
	if len(counts) != parts {
		t.Fatalf("keys spread over %d partitions: %v", len(counts), counts)
	}
}
