package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/consumer"
	"github.com/zkafka/zkafka/tools/consumergroups"
	"github.com/zkafka/zkafka/tools/verifiable"
)

// kafka-verifiable-consumer on KafkaConsumer: partitions_assigned, records_consumed,
// offsets_committed (the offsets committed are read back by sarama), shutdown_complete after
// --max-messages.
func TestVerifiableConsumerEvents(t *testing.T) {
	b := startTestBroker(t, nil)
	b.createTopic(t, "vc", 2, nil)
	produceSarama(t, b.addr, "vc", 0, 0, 10, sarama.CompressionNone)
	produceSarama(t, b.addr, "vc", 1, 0, 10, sarama.CompressionNone)
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code := verifiable.RunConsumer(ctx, []string{"--broker-list", b.addr, "--topic", "vc", "--group-id", "vg", "--max-messages", "20",
		"--session-timeout", "6000", "--verbose"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	counts := map[string]int{}
	consumed, committed := 0, map[int32]int64{}
	for _, l := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		if _, ok := m["timestamp"].(float64); !ok || !strings.HasPrefix(l, `{"timestamp":`) {
			t.Fatalf("no timestamp first: %s", l)
		}
		name := m["name"].(string)
		counts[name]++
		switch name {
		case "partitions_assigned":
			if len(m["partitions"].([]any)) != 2 {
				t.Fatalf("assigned %s", l)
			}
		case "records_consumed":
			consumed += int(m["count"].(float64))
		case "record_data":
			if !strings.HasPrefix(m["value"].(string), "v") || !strings.HasPrefix(m["key"].(string), "k") {
				t.Fatalf("record_data %s", l)
			}
		case "offsets_committed":
			if m["success"] != true {
				t.Fatalf("commit failed: %s", l)
			}
			for _, o := range m["offsets"].([]any) {
				om := o.(map[string]any)
				committed[int32(om["partition"].(float64))] = int64(om["offset"].(float64))
			}
		}
	}
	if counts["partitions_assigned"] != 1 || counts["record_data"] != 20 || consumed != 20 || counts["shutdown_complete"] != 1 ||
		counts["offsets_committed"] < 1 || committed[0] != 10 || committed[1] != 10 {
		t.Fatalf("events %v consumed %d committed %v:\n%s", counts, consumed, committed, out.String())
	}
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	cl, err := sarama.NewClient([]string{b.addr}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	om, err := sarama.NewOffsetManagerFromClient("vg", cl)
	if err != nil {
		t.Fatal(err)
	}
	defer om.Close()
	for p := int32(0); p < 2; p++ {
		pom, err := om.ManagePartition("vc", p)
		if err != nil {
			t.Fatal(err)
		}
		if o, _ := pom.NextOffset(); o != 10 {
			t.Fatalf("sarama reads %d for partition %d", o, p)
		}
		pom.AsyncClose()
	}
}

// kafka-consumer-groups --new-consumer --describe shows a KafkaConsumer member's consumer id
// (client.id-<uuid>), host and client id, with its committed offsets and lag.
func TestConsumerGroupsDescribesKafkaConsumer(t *testing.T) {
	b := startTestBroker(t, nil)
	b.createTopic(t, "cgd", 1, nil)
	produceSarama(t, b.addr, "cgd", 0, 0, 10, sarama.CompressionNone)
	c := newTestConsumer(t, b.addr, "group.id", "gd", "client.id", "describe-me", "auto.offset.reset", "earliest", "enable.auto.commit", "false")
	if err := c.Subscribe([]string{"cgd"}, nil); err != nil {
		t.Fatal(err)
	}
	pollN(t, c, 10)
	if err := c.CommitSync(map[common.TopicPartition]consumer.OffsetAndMetadata{{Topic: "cgd", Partition: 0}: {Offset: 7}}); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := consumergroups.Run(context.Background(), []string{"--bootstrap-server", b.addr, "--describe", "--group", "gd"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	re := regexp.MustCompile(`(?m)^cgd\s+0\s+7\s+10\s+3\s+describe-me-[0-9a-f-]{36}\s+/127\.0\.0\.1\s+describe-me$`)
	if !re.MatchString(out.String()) {
		t.Fatalf("describe printed:\n%s%s", out.String(), errOut.String())
	}
}
