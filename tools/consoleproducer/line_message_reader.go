package consoleproducer

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/zkafka/zkafka/clients/producer"
)

// LineMessageReader reads one record per line: the whole line as the value, or, with
// parse.key=true, the text before key.separator (tab by default) as the key and the rest as the
// value; a line without the separator is an error unless ignore.error=true, when it becomes a
// value without a key.
//
// Kafka 0.10.2: ConsoleProducer.LineMessageReader (a MessageReader).
type LineMessageReader struct {
	topic        string
	reader       *bufio.Reader
	parseKey     bool
	keySeparator string
	ignoreError  bool
	lineNumber   int
}

// NewLineMessageReader reads from in with the reader properties (parse.key, key.separator,
// ignore.error).
func NewLineMessageReader(in io.Reader, topic string, props map[string]string) *LineMessageReader {
	r := &LineMessageReader{topic: topic, reader: bufio.NewReaderSize(in, 64<<10), keySeparator: "\t"}
	if v, ok := props["parse.key"]; ok {
		r.parseKey = strings.EqualFold(strings.TrimSpace(v), "true")
	}
	if v, ok := props["key.separator"]; ok {
		r.keySeparator = v
	}
	if v, ok := props["ignore.error"]; ok {
		r.ignoreError = strings.EqualFold(strings.TrimSpace(v), "true")
	}
	return r
}

// ReadMessage returns the next record, io.EOF at the end of the input.
func (r *LineMessageReader) ReadMessage() (producer.ProducerRecord[[]byte, []byte], error) {
	r.lineNumber++
	line, err := r.readLine()
	if err != nil {
		return producer.ProducerRecord[[]byte, []byte]{}, err
	}
	if !r.parseKey {
		return producer.ProducerRecord[[]byte, []byte]{Topic: r.topic, Value: []byte(line)}, nil
	}
	n := strings.Index(line, r.keySeparator)
	if n < 0 {
		if r.ignoreError {
			return producer.ProducerRecord[[]byte, []byte]{Topic: r.topic, Value: []byte(line)}, nil
		}
		return producer.ProducerRecord[[]byte, []byte]{}, fmt.Errorf("No key found on line %d: %s", r.lineNumber, line)
	}
	value := []byte{}
	if n+len(r.keySeparator) <= len(line) {
		value = []byte(line[n+len(r.keySeparator):])
	}
	return producer.ProducerRecord[[]byte, []byte]{Topic: r.topic, Key: []byte(line[:n]), Value: value}, nil
}

// readLine is BufferedReader.readLine: a line ends at \n, \r or \r\n; the last line needs no
// terminator; io.EOF when nothing is left.
func (r *LineMessageReader) readLine() (string, error) {
	var b strings.Builder
	for {
		c, err := r.reader.ReadByte()
		if err != nil {
			if b.Len() > 0 && errors.Is(err, io.EOF) {
				return b.String(), nil
			}
			return "", err
		}
		switch c {
		case '\n':
			return b.String(), nil
		case '\r':
			if next, err := r.reader.Peek(1); err == nil && next[0] == '\n' {
				r.reader.ReadByte() //nolint:errcheck
			}
			return b.String(), nil
		}
		b.WriteByte(c)
	}
}
