package metrics

import (
	"sort"
	"strings"
)

// MetricName identifies a metric: its name, its group (the JMX type, e.g. producer-metrics),
// a description, and tags (client-id, node-id, topic).
//
// Kafka 0.10.2: org.apache.kafka.common.MetricName.
type MetricName struct {
	Name        string
	Group       string
	Description string
	Tags        map[string]string
}

// key is the identity of the name in the registry: name, group and sorted tags (the
// description is not part of a metric's identity, as in Kafka's MetricName.equals).
func (n MetricName) key() string {
	var b strings.Builder
	b.WriteString(n.Group)
	b.WriteByte(0)
	b.WriteString(n.Name)
	for _, k := range sortedKeys(n.Tags) {
		b.WriteByte(0)
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(n.Tags[k])
	}
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TagsString renders the tags as Java's Map.toString does for a sorted map: {k1=v1, k2=v2}.
func (n MetricName) TagsString() string {
	parts := make([]string, 0, len(n.Tags))
	for _, k := range sortedKeys(n.Tags) {
		parts = append(parts, k+"="+n.Tags[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// String renders the name as Kafka's MetricName.toString does.
func (n MetricName) String() string {
	return "MetricName [name=" + n.Name + ", group=" + n.Group + ", description=" + n.Description + ", tags=" + n.TagsString() + "]"
}
