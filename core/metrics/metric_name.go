package metrics

import (
	"sort"
	"strings"
)

// Tag is one key property of an MBean name after "name=", such as topic=t or request=Produce.
type Tag struct {
	Key, Value string
}

// Tags builds tags from key, value pairs, in order: Tags("topic", t, "partition", "0"). A missing
// last value counts as empty (and so the tag is dropped from the name).
func Tags(kv ...string) []Tag {
	tags := make([]Tag, 0, (len(kv)+1)/2)
	for i := 0; i < len(kv); i += 2 {
		t := Tag{Key: kv[i]}
		if i+1 < len(kv) {
			t.Value = kv[i+1]
		}
		tags = append(tags, t)
	}
	return tags
}

// TagsFromMap turns a map of tags (purgatory.MetricTags, say) into tags sorted by key. Use it only
// for maps of one entry or where Kafka's order does not matter: a Go map has no order, and MBean
// names with several tags keep Kafka's insertion order (use Tags for those).
func TagsFromMap(m map[string]string) []Tag {
	tags := make([]Tag, 0, len(m))
	for k, v := range m {
		tags = append(tags, Tag{Key: k, Value: v})
	}
	sort.Slice(tags, func(i, j int) bool { return tags[i].Key < tags[j].Key })
	return tags
}

// MetricName identifies one metric: Kafka's group (the Scala package), type (the class's simple
// name), name, and tags. MBeanName is the registry key.
//
// Kafka 0.10.2: com.yammer.metrics.core.MetricName as built by
// kafka.metrics.KafkaMetricsGroup.explicitMetricName.
type MetricName struct {
	Group string // "kafka.server"
	Type  string // "BrokerTopicMetrics"
	Name  string // "BytesInPerSec"
	Tags  []Tag
}

// NewMetricName builds a name; tags keep their order.
func NewMetricName(group, typeName, name string, tags ...Tag) MetricName {
	return MetricName{Group: group, Type: typeName, Name: name, Tags: tags}
}

// MBeanName is the JMX ObjectName string Kafka registers, e.g.
// "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Fetch".
func (n MetricName) MBeanName() string {
	var b strings.Builder
	b.WriteString(n.Group)
	b.WriteString(":type=")
	b.WriteString(n.Type)
	if n.Name != "" {
		b.WriteString(",name=")
		b.WriteString(n.Name)
	}
	for _, t := range n.Tags {
		if t.Value == "" {
			continue
		}
		b.WriteByte(',')
		b.WriteString(t.Key)
		b.WriteByte('=')
		b.WriteString(quoteIfRequired(t.Value))
	}
	return b.String()
}

// Scope is Yammer's scope: the non-empty tags sorted by key, "key.value" joined by dots, with dots
// in values turned into underscores (for Graphite-like reporters). Empty when there are no tags.
func (n MetricName) Scope() string {
	tags := make([]Tag, 0, len(n.Tags))
	for _, t := range n.Tags {
		if t.Value != "" {
			tags = append(tags, t)
		}
	}
	sort.SliceStable(tags, func(i, j int) bool { return tags[i].Key < tags[j].Key })
	parts := make([]string, len(tags))
	for i, t := range tags {
		parts[i] = t.Key + "." + strings.ReplaceAll(t.Value, ".", "_")
	}
	return strings.Join(parts, ".")
}

// String is the MBean name.
func (n MetricName) String() string { return n.MBeanName() }

// quoteIfRequired quotes a tag value holding ':' (an IPv6 broker host, say), which an ObjectName
// value may not contain bare; the quoting rules are ObjectName.quote's: wrap in double quotes and
// backslash-escape '"', '*', '?', '\' and newline.
func quoteIfRequired(v string) string {
	if !strings.Contains(v, ":") {
		return v
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range v {
		switch r {
		case '"', '*', '?', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// ParseMBeanName splits an MBean name back into group and ordered key properties (type and name
// included). It is the inverse of MBeanName for the names this package builds; quoted values are
// returned unquoted. ok is false for a string without a "group:" prefix.
func ParseMBeanName(s string) (group string, props []Tag, ok bool) {
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return "", nil, false
	}
	group, rest := s[:i], s[i+1:]
	for rest != "" {
		eq := strings.IndexByte(rest, '=')
		if eq < 0 {
			return "", nil, false
		}
		key := rest[:eq]
		rest = rest[eq+1:]
		var val string
		if strings.HasPrefix(rest, `"`) {
			var b strings.Builder
			j := 1
			for ; j < len(rest) && rest[j] != '"'; j++ {
				if rest[j] == '\\' && j+1 < len(rest) {
					j++
					if rest[j] == 'n' {
						b.WriteByte('\n')
						continue
					}
				}
				b.WriteByte(rest[j])
			}
			if j >= len(rest) {
				return "", nil, false
			}
			val, rest = b.String(), rest[j+1:]
		} else {
			end := strings.IndexByte(rest, ',')
			if end < 0 {
				end = len(rest)
			}
			val, rest = rest[:end], rest[end:]
		}
		props = append(props, Tag{Key: key, Value: val})
		if rest == "" {
			break
		}
		if rest[0] != ',' {
			return "", nil, false
		}
		rest = rest[1:]
	}
	return group, props, true
}
