package record

import "iter"

// The parts of Kafka's AbstractRecords that the broker needs on both kinds of message set: a
// magic check and the down-conversion of fetched data for old clients. Go has no abstract base
// class, so they are functions over the two iterators, with a method on each type.

// HasMatchingShallowMagic reports whether every shallow entry has the given magic.
//
// Kafka 0.10.2: AbstractRecords.hasMatchingShallowMagic.
func (m *MemoryRecords) HasMatchingShallowMagic(magic int8) (bool, error) {
	for e, err := range m.ShallowEntries() {
		if err != nil {
			return false, err
		}
		if e.Magic() != magic {
			return false, nil
		}
	}
	return true, nil
}

// HasMatchingShallowMagic reports whether every shallow entry has the given magic.
//
// Kafka 0.10.2: AbstractRecords.hasMatchingShallowMagic.
func (fr *FileRecords) HasMatchingShallowMagic(magic int8) (bool, error) {
	for fe, err := range fr.ShallowEntries() {
		if err != nil {
			return false, err
		}
		r, err := fe.Record()
		if err != nil {
			return false, err
		}
		if r.Magic() != magic {
			return false, nil
		}
	}
	return true, nil
}

// ToMessageFormat returns the set's messages converted to toMagic (see toMessageFormat).
//
// Kafka 0.10.2: AbstractRecords.toMessageFormat.
func (m *MemoryRecords) ToMessageFormat(toMagic int8) (Records, error) {
	codec := NONE
	for e, err := range m.ShallowEntries() {
		if err == nil {
			codec = e.Record.CompressionType()
		}
		break
	}
	return toMessageFormat(m, m.DeepEntries(), codec, toMagic)
}

// ToMessageFormat returns the set's messages converted to toMagic, in memory (see toMessageFormat).
//
// Kafka 0.10.2: AbstractRecords.toMessageFormat.
func (fr *FileRecords) ToMessageFormat(toMagic int8) (Records, error) {
	codec := NONE
	for fe, err := range fr.ShallowEntries() {
		if err == nil {
			if r, err := fe.Record(); err == nil {
				codec = r.CompressionType()
			}
		}
		break
	}
	return toMessageFormat(fr, fr.DeepEntries(), codec, toMagic)
}

// toMessageFormat converts every message of a set to toMagic and rebuilds one set, compressed
// with the codec of the set's first shallow entry (as Kafka does: the down-conversion of a fetch
// for a pre-0.10 client). When no whole message is present (the fetch size cut the first one) the
// set is returned as it is, so the old client sees a partial message and reports it as too large.
//
// Kafka 0.10.2: AbstractRecords.toMessageFormat (with MemoryRecords.withLogEntries, CreateTime).
func toMessageFormat(self Records, deep iter.Seq2[LogEntry, error], codec CompressionType, toMagic int8) (Records, error) {
	var converted []LogEntry
	for e, err := range deep {
		if err != nil {
			return nil, err
		}
		r, err := e.Record.Convert(toMagic)
		if err != nil {
			return nil, err
		}
		converted = append(converted, NewLogEntry(e.Offset, r))
	}
	if len(converted) == 0 {
		return self, nil
	}
	b, err := BuilderWithEntries(CreateTime, codec, NoTimestamp, converted)
	if err != nil {
		return nil, err
	}
	return b.Build(), nil
}
