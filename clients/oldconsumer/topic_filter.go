package oldconsumer

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/zkafka/zkafka/clients/common"
)

// TopicFilter selects topics by a regular expression, for wildcard subscriptions.
//
// Kafka 0.10.2: kafka.consumer.TopicFilter (a sealed class with Whitelist and Blacklist). The
// expression is normalised as Kafka does (trimmed, ',' read as '|', spaces and surrounding
// quotes dropped) and must match the whole topic name (Java's String.matches). Go's RE2 syntax
// covers Java's for topic patterns; constructs RE2 lacks (look-around, back-references) are
// refused when the filter is made.
type TopicFilter interface {
	// IsTopicAllowed reports whether topic passes the filter; internal topics never pass when
	// excludeInternalTopics is set.
	IsTopicAllowed(topic string, excludeInternalTopics bool) bool
	// Regex is the normalised expression (what the registration's subscription records).
	Regex() string
	String() string
}

type topicRegex struct {
	regex string
	re    *regexp.Regexp
}

var (
	leadingQuotes  = regexp.MustCompile(`^["']+`)
	trailingQuotes = regexp.MustCompile(`["']+$`)
)

func newTopicRegex(raw string) (topicRegex, error) {
	r := strings.TrimSpace(raw)
	r = strings.ReplaceAll(r, ",", "|")
	r = strings.ReplaceAll(r, " ", "")
	r = leadingQuotes.ReplaceAllString(r, "")
	r = trailingQuotes.ReplaceAllString(r, "")
	re, err := regexp.Compile(`^(?:` + r + `)$`)
	if err != nil {
		return topicRegex{}, fmt.Errorf("%s is an invalid regex.", r)
	}
	return topicRegex{regex: r, re: re}, nil
}

func (t topicRegex) Regex() string         { return t.regex }
func (t topicRegex) String() string        { return t.regex }
func (t topicRegex) matches(s string) bool { return t.re.MatchString(s) }

// Whitelist allows the topics its expression matches.
//
// Kafka 0.10.2: kafka.consumer.Whitelist.
type Whitelist struct{ topicRegex }

// NewWhitelist normalises and compiles rawRegex.
func NewWhitelist(rawRegex string) (*Whitelist, error) {
	t, err := newTopicRegex(rawRegex)
	if err != nil {
		return nil, err
	}
	return &Whitelist{t}, nil
}

// IsTopicAllowed implements TopicFilter.
func (w *Whitelist) IsTopicAllowed(topic string, excludeInternalTopics bool) bool {
	return w.matches(topic) && !(common.IsInternalTopic(topic) && excludeInternalTopics)
}

// Blacklist allows the topics its expression does not match.
//
// Kafka 0.10.2: kafka.consumer.Blacklist.
type Blacklist struct{ topicRegex }

// NewBlacklist normalises and compiles rawRegex.
func NewBlacklist(rawRegex string) (*Blacklist, error) {
	t, err := newTopicRegex(rawRegex)
	if err != nil {
		return nil, err
	}
	return &Blacklist{t}, nil
}

// IsTopicAllowed implements TopicFilter.
func (b *Blacklist) IsTopicAllowed(topic string, excludeInternalTopics bool) bool {
	return !b.matches(topic) && !(common.IsInternalTopic(topic) && excludeInternalTopics)
}
