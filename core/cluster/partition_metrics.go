package cluster

// IsrChangeMeters is an optional part of the ReplicaManager seam: a ReplicaManager that
// implements it is told each time a partition it hosts expands or shrinks its ISR (Kafka's
// ReplicaManager.isrExpandRate and isrShrinkRate, the IsrExpandsPerSec and IsrShrinksPerSec
// meters). It is a separate interface so that test doubles of ReplicaManager need not care.
//
// Kafka 0.10.2: kafka.cluster.Partition marks replicaManager.isrExpandRate/isrShrinkRate.
type IsrChangeMeters interface {
	MarkIsrExpand()
	MarkIsrShrink()
}

// markIsrExpand marks IsrExpandsPerSec when the ReplicaManager counts ISR changes.
func (p *Partition) markIsrExpand() {
	if m, ok := p.replicaManager.(IsrChangeMeters); ok {
		m.MarkIsrExpand()
	}
}

// markIsrShrink marks IsrShrinksPerSec when the ReplicaManager counts ISR changes.
func (p *Partition) markIsrShrink() {
	if m, ok := p.replicaManager.(IsrChangeMeters); ok {
		m.MarkIsrShrink()
	}
}
