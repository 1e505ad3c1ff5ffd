package metrics

import (
	"fmt"
	"strconv"
)

// Quota is an upper or lower bound on a metric's value.
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.Quota.
type Quota struct {
	bound float64
	upper bool
}

// UpperBound is Quota.upperBound: values up to bound are acceptable.
func UpperBound(bound float64) Quota { return Quota{bound: bound, upper: true} }

// LowerBound is Quota.lowerBound: values from bound up are acceptable.
func LowerBound(bound float64) Quota { return Quota{bound: bound} }

// Bound is the quota's limit.
func (q Quota) Bound() float64 { return q.bound }

// IsUpperBound reports an upper bound.
func (q Quota) IsUpperBound() bool { return q.upper }

// Acceptable reports whether value is within the quota.
func (q Quota) Acceptable(value float64) bool {
	return (q.upper && value <= q.bound) || (!q.upper && value >= q.bound)
}

func (q Quota) String() string {
	if q.upper {
		return "upper=" + strconv.FormatFloat(q.bound, 'f', -1, 64)
	}
	return "lower=" + strconv.FormatFloat(q.bound, 'f', -1, 64)
}

// QuotaViolationError is returned by Sensor.Record when the value recorded takes one of the
// sensor's metrics outside its quota (the value is recorded all the same).
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.QuotaViolationException.
type QuotaViolationError struct {
	MetricName MetricName
	Value      float64
	Bound      float64
}

func (e *QuotaViolationError) Error() string {
	return fmt.Sprintf("'%s' violated quota. Actual: %f, Threshold: %f", e.MetricName, e.Value, e.Bound)
}
