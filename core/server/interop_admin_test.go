package server

import (
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
)

// kafkaPythonGroupsScript lists and describes the consumer groups with kafka-python's
// KafkaAdminClient (ListGroups, GroupCoordinator, DescribeGroups) and prints
// {"groups": [[id, protocol_type], ...], "described": {id: [state, members]}}.
const kafkaPythonGroupsScript = `
import json, sys
from kafka.admin import KafkaAdminClient
admin = KafkaAdminClient(bootstrap_servers=sys.argv[1], client_id="kafka-python-groups")
groups = admin.list_consumer_groups()
described = {g.group: [g.state, len(g.members)] for g in admin.describe_consumer_groups([sys.argv[2]])}
admin.close()
print(json.dumps({"groups": [list(g) for g in groups], "described": described}))
`

// checkGroupAdminClients: ListGroups and DescribeGroups answered to sarama's ClusterAdmin and to
// kafka-python's KafkaAdminClient, while group has members in a stable group; and a SaslHandshake
// from sarama on this PLAINTEXT listener answered ILLEGAL_SASL_STATE, which is all 0.10.2's
// KafkaApis ever answers (a valid handshake is the SASL authenticator's, before KafkaApis).
func checkGroupAdminClients(t *testing.T, addr, group string, members int) {
	t.Helper()
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	ca, err := sarama.NewClusterAdmin([]string{addr}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close()
	listed, err := ca.ListConsumerGroups()
	if err != nil || listed[group] != "consumer" {
		t.Errorf("sarama ListConsumerGroups: %v %v", listed, err)
	}
	described, err := ca.DescribeConsumerGroups([]string{group})
	if err != nil || len(described) != 1 || described[0].State != "Stable" || len(described[0].Members) != members {
		t.Errorf("sarama DescribeConsumerGroups: %+v %v", described, err)
	} else {
		for id, m := range described[0].Members {
			if a, err := m.GetMemberAssignment(); err != nil || len(a.Topics) == 0 {
				t.Errorf("member %s assignment %+v %v", id, a, err)
			}
		}
	}

	if exec.Command("/usr/bin/python3", "-c", "import kafka").Run() == nil {
		out, err := exec.Command("/usr/bin/python3", "-c", kafkaPythonGroupsScript, addr, group).CombinedOutput()
		if err != nil {
			t.Errorf("kafka-python: %v\n%s", err, out)
		} else {
			var got struct {
				Groups    [][]string
				Described map[string][]any
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
				t.Errorf("kafka-python output %q: %v", out, err)
			}
			found := false
			for _, g := range got.Groups {
				found = found || (len(g) == 2 && g[0] == group && g[1] == "consumer")
			}
			if !found {
				t.Errorf("kafka-python list_consumer_groups: %v, want [%s consumer] among them", got.Groups, group)
			}
			if d := got.Described[group]; len(d) != 2 || d[0] != "Stable" || d[1] != float64(members) {
				t.Errorf("kafka-python describe_consumer_groups: %v", got.Described)
			}
		}
	} else {
		t.Log("kafka-python not installed for /usr/bin/python3: its half of the check is skipped")
	}

	sasl := sarama.NewConfig()
	sasl.Version = sarama.V0_10_2_0
	sasl.Net.SASL.Enable = true
	sasl.Net.SASL.Mechanism = sarama.SASLTypePlaintext
	sasl.Net.SASL.User, sasl.Net.SASL.Password = "u", "p"
	sasl.Net.DialTimeout = 10 * time.Second
	b := sarama.NewBroker(addr)
	if err := b.Open(sasl); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.Connected(); !errors.Is(err, sarama.ErrIllegalSASLState) {
		t.Errorf("sarama SASL handshake: %v, want %v", err, sarama.ErrIllegalSASLState)
	}
}
