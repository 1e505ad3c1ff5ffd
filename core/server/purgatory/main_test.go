package purgatory

import (
	"testing"

	"go.uber.org/goleak"
)

// Kafka test -> Go test
//
//	DelayedOperationTest.testRequestSatisfaction -> TestRequestSatisfaction
//	DelayedOperationTest.testRequestExpiry       -> TestRequestExpiry
//	DelayedOperationTest.testRequestPurge        -> TestRequestPurge
//	(zkafka: tryCompleteElseWatch's checks)      -> TestTryCompleteElseWatchCompletesAtOnce,
//	                                                TestSecondCheckCompletes, TestCompletedElsewhereIsNotWatched
//	(zkafka: exactly-once completion)            -> TestForceCompleteExactlyOnce, TestExpirePathAfterCompletion
//	(zkafka: purging and watcher lists)          -> TestReaperPurgesCompleted, TestEmptyWatchersRemoved
//	(zkafka: MockTimer, re-entrant hooks, keys)  -> TestMockTimerDrivesExpiry, TestHooksMayReenterPurgatory, TestKeys
//	(zkafka: misuse)                             -> TestUninitialisedOperationPanics, TestEmptyKeysPanics
//	(zkafka: shutdown)                           -> TestShutdownIsPromptAndIdempotent, TestShutdownHonoursContext
//	(acceptance: timing wheel under load)        -> TestManyOperationsCompleteOrExpireExactlyOnce
//	                                                (100,000 operations; 20,000 under -race)
//
// goleak checks that no reaper, purge or executor goroutine survives Shutdown.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
