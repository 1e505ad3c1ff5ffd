package reassign

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/zk/zkutils"
)

func (c *ReassignPartitionsCommand) generateFromFile(brokerListStr, topicsFile string, disableRackAware bool) error {
	var brokers []int32
	for _, s := range strings.Split(brokerListStr, ",") {
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return fmt.Errorf("For input string: \"%s\"", s)
		}
		brokers = append(brokers, int32(n))
	}
	if d := duplicates(brokers); len(d) > 0 {
		return admin.NewAdminCommandFailedException("Broker list contains duplicate entries: " + joinInts(d, ","))
	}
	data, err := readFile(topicsFile)
	if err != nil {
		return err
	}
	proposed, current, err := c.GenerateAssignment(brokers, data, disableRackAware)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Out, "Current partition replica assignment\n%s\n\n", zkutils.FormatAsReassignmentJson(sortedAssignment(current)))
	fmt.Fprintf(c.Out, "Proposed partition reassignment configuration\n%s\n", zkutils.FormatAsReassignmentJson(sortedAssignment(proposed)))
	return nil
}

// ParseTopicsData reads the --topics-to-move-json-file list; anything
// unreadable gives no topics, as Kafka's parser does.
//
// Kafka 0.10.2: ZkUtils.parseTopicsData.
func ParseTopicsData(data []byte) []string {
	var j struct {
		Topics []struct {
			Topic *string `json:"topic"`
		} `json:"topics"`
	}
	if json.Unmarshal(data, &j) != nil {
		return nil
	}
	var out []string
	for _, t := range j.Topics {
		if t.Topic != nil {
			out = append(out, *t.Topic)
		}
	}
	return out
}

// GenerateAssignment proposes, for every partition of the listed topics, a
// fresh assignment over the given brokers (the registered ones among them),
// keeping each topic's partition count and replication factor. It returns the
// proposal and the current assignment; nothing is written.
//
// Kafka 0.10.2: ReassignPartitionsCommand.generateAssignment.
func (c *ReassignPartitionsCommand) GenerateAssignment(brokers []int32, topicsJSON []byte, disableRackAware bool) (proposed, current map[common.TopicPartition][]int32, err error) {
	topics := ParseTopicsData(topicsJSON)
	if d := duplicates(topics); len(d) > 0 {
		return nil, nil, admin.NewAdminCommandFailedException("List of topics to reassign contains duplicate entries: " + strings.Join(d, ","))
	}
	current, err = c.Admin.ZkUtils.GetReplicaAssignmentForTopics(topics)
	if err != nil {
		return nil, nil, err
	}
	byTopic := map[string]map[int32][]int32{}
	for tp, r := range current {
		if byTopic[tp.Topic] == nil {
			byTopic[tp.Topic] = map[int32][]int32{}
		}
		byTopic[tp.Topic][tp.Partition] = r
	}
	mode := admin.RackAwareEnforced
	if disableRackAware {
		mode = admin.RackAwareDisabled
	}
	if brokers == nil {
		brokers = []int32{}
	}
	metadata, err := c.Admin.GetBrokerMetadatas(mode, brokers)
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, 0, len(byTopic))
	for t := range byTopic {
		names = append(names, t)
	}
	sort.Strings(names)
	proposed = map[common.TopicPartition][]int32{}
	for _, t := range names {
		a := byTopic[t]
		first := int32(-1)
		for p := range a {
			if first < 0 || p < first {
				first = p
			}
		}
		assigned, err := admin.AssignReplicasToBrokers(metadata, int32(len(a)), int32(len(a[first])), -1, -1, c.Admin.Rand)
		if err != nil {
			return nil, nil, err
		}
		for p, r := range assigned {
			proposed[common.TopicPartition{Topic: t, Partition: p}] = r
		}
	}
	return proposed, current, nil
}
