package timer

import (
	"testing"

	"go.uber.org/goleak"
)

// Kafka test -> Go test
//
//	TimerTest.testAlreadyExpiredTask  -> TestAlreadyExpiredTask
//	TimerTest.testTaskExpiration      -> TestTaskExpiration
//	TimerTaskListTest.testAll         -> TestTimerTaskListAll
//	MockTimer (Kafka test support)    -> TestMockTimer
//	(zkafka: the wheel hierarchy)     -> TestTimingWheelExpiresAtDeadline, TestOverflowWheelCreatedLazily,
//	                                     TestHugeDelayDoesNotOverflow, TestTimerTaskListFlush
//	(zkafka: cancel, re-add, races)   -> TestCancelRemovesTask, TestReAddMovesTask, TestConcurrentCancelAndExpire
//	(zkafka: executor, shutdown)      -> TestExecutorRecoversPanic, TestShutdownWakesAdvanceClockAndDropsLateTasks
//	(zkafka: the Go DelayQueue)       -> TestDelayQueueOrderAndDue, TestDelayQueuePollTimesOut,
//	                                     TestDelayQueueWakesForEarlierBucket, TestDelayQueueCloseWakesPoller
//
// The purgatory's 100,000-operation acceptance test (expiry lateness, exactly-once) is in
// core/server/purgatory. goleak checks that no executor goroutine survives Shutdown.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
