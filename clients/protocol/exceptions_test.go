package protocol

import (
	"fmt"
	"testing"
)

func TestExceptionName(t *testing.T) {
	if len(exceptionClasses) != len(errorsByCode) {
		t.Fatalf("%d exception classes for %d codes", len(exceptionClasses), len(errorsByCode))
	}
	cases := map[error]string{
		ErrRequestTimedOut:                      "org.apache.kafka.common.errors.TimeoutException",
		fmt.Errorf("x: %w", ErrMessageTooLarge): "org.apache.kafka.common.errors.RecordTooLargeException",
		Errorf(ErrPolicyViolation, "no"):        "org.apache.kafka.common.errors.PolicyViolationException",
		ErrUnknown:                              "org.apache.kafka.common.errors.UnknownServerException",
		fmt.Errorf("plain"):                     "",
	}
	for err, want := range cases {
		if got := ExceptionName(err); got != want {
			t.Errorf("ExceptionName(%v) = %q, want %q", err, got, want)
		}
	}
}

func TestExceptionMessage(t *testing.T) {
	cases := map[error]string{
		Errorf(ErrRequestTimedOut, "Failed to update metadata after %d ms.", 5): "Failed to update metadata after 5 ms.",
		ErrNotLeaderForPartition:    ErrNotLeaderForPartition.Message,
		fmt.Errorf("plain failure"): "plain failure",
	}
	for err, want := range cases {
		if got := ExceptionMessage(err); got != want {
			t.Errorf("ExceptionMessage(%v) = %q, want %q", err, got, want)
		}
	}
}
