package zkutils

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Subscription patterns of an old consumer (TopicCount.*Pattern).
const (
	StaticPattern    = "static"
	WhiteListPattern = "white_list"
	BlackListPattern = "black_list"
)

// TopicStreams is one entry of a subscription: a topic (or, for wildcards, the
// JSON-escaped regex) and its number of streams.
type TopicStreams struct {
	Topic   string
	Streams int32
}

// ConsumerRegistration is the content of /consumers/<group>/ids/<consumerId>.
//
// Kafka 0.10.2: the map ZookeeperConsumerConnector.registerConsumerInZK encodes,
// read back by TopicCount.constructTopicCount.
type ConsumerRegistration struct {
	Version      int32
	Subscription []TopicStreams // in the order of the user's topic → streams map
	Pattern      string
	Timestamp    string // ms, as a string
}

// Encode writes e.g.
// {"version":1,"subscription":{"foo":2},"pattern":"static","timestamp":"1490000000000"}.
// The subscription is an immutable Scala map, so from five topics on it is
// written in hash order.
func (r ConsumerRegistration) Encode() []byte {
	sub := &jsonObject{}
	for _, t := range r.Subscription {
		sub.put(t.Topic, t.Streams)
	}
	o := &jsonObject{}
	o.put("version", r.Version)
	o.put("subscription", sub.scalaImmutable())
	o.put("pattern", r.Pattern)
	o.put("timestamp", r.Timestamp)
	return []byte(encodeJSON(o))
}

// DecodeConsumerRegistration parses a registration, keeping the subscription's
// member order.
func DecodeConsumerRegistration(data []byte) (ConsumerRegistration, error) {
	var j struct {
		Version      *int32          `json:"version"`
		Subscription json.RawMessage `json:"subscription"`
		Pattern      *string         `json:"pattern"`
		Timestamp    json.RawMessage `json:"timestamp"`
	}
	fail := func(err error) (ConsumerRegistration, error) {
		return ConsumerRegistration{}, fmt.Errorf("error constructing TopicCount from %q: %w", data, err)
	}
	if err := json.Unmarshal(data, &j); err != nil {
		return fail(err)
	}
	if j.Version == nil || j.Pattern == nil || j.Subscription == nil {
		return fail(fmt.Errorf("missing version, pattern or subscription"))
	}
	r := ConsumerRegistration{Version: *j.Version, Pattern: *j.Pattern}
	switch r.Pattern {
	case StaticPattern, WhiteListPattern, BlackListPattern:
	default:
		return fail(fmt.Errorf("unknown pattern %q", r.Pattern))
	}
	if len(j.Timestamp) > 0 {
		var s string
		if err := json.Unmarshal(j.Timestamp, &s); err == nil {
			r.Timestamp = s
		} else {
			r.Timestamp = string(j.Timestamp)
		}
	}
	keys, err := objectKeys(j.Subscription)
	if err != nil {
		return fail(err)
	}
	var counts map[string]int32
	if err := json.Unmarshal(j.Subscription, &counts); err != nil {
		return fail(err)
	}
	for _, k := range keys {
		r.Subscription = append(r.Subscription, TopicStreams{Topic: k, Streams: counts[k]})
	}
	return r, nil
}

// objectKeys lists the member names of a JSON object in document order (first
// occurrence of each).
func objectKeys(raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("expected a JSON object")
	}
	var keys []string
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("expected an object key")
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// ConsumerOffsetZkData is the decimal offset stored in
// /consumers/<group>/offsets/<topic>/<partition>.
func ConsumerOffsetZkData(offset int64) []byte { return []byte(strconv.FormatInt(offset, 10)) }

// ParseConsumerOffset reads an offset node.
func ParseConsumerOffset(data []byte) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid consumer offset %q: %w", data, err)
	}
	return v, nil
}
