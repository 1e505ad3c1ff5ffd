"""kafka-python's KafkaAdminClient against a zkafka cluster (run with /usr/bin/python3).

Usage: kafka_python_admin.py BOOTSTRAP ACTION PREFIX

The client connects (it finds the controller through Metadata v1's controller_id), prints
"ready", waits for one line on stdin (the test may move the controller meanwhile), then runs
ACTION and prints one JSON object: each step's outcome, "NONE" or the kafka-python error class.

ACTION create: PREFIX-counts (3 partitions, RF 2), PREFIX-configs (1 partition, RF 3, two
configs), PREFIX-assigned (an explicit assignment), PREFIX-validate (validate_only), then
PREFIX-counts again (must fail: TopicAlreadyExistsError).
ACTION delete: the three created topics, then PREFIX-validate (never created:
UnknownTopicOrPartitionError).
"""
import json
import sys

from kafka.admin import KafkaAdminClient, NewTopic
from kafka.errors import KafkaError

bootstrap, action, prefix = sys.argv[1:4]
admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id="kafka-python-admin",
                         request_timeout_ms=60000)
print("ready", flush=True)
sys.stdin.readline()

out = {}


def attempt(step, fn):
    try:
        fn()
        out[step] = "NONE"
    except KafkaError as e:
        out[step] = type(e).__name__


T = 30000
if action == "create":
    attempt("counts", lambda: admin.create_topics([NewTopic(prefix + "-counts", 3, 2)], timeout_ms=T))
    attempt("configs", lambda: admin.create_topics([NewTopic(prefix + "-configs", 1, 3, topic_configs={
        "retention.ms": "3600000", "cleanup.policy": "compact"})], timeout_ms=T))
    attempt("assigned", lambda: admin.create_topics([NewTopic(prefix + "-assigned", -1, -1, replica_assignments={
        0: [0, 1], 1: [1, 2], 2: [2, 0]})], timeout_ms=T))
    attempt("validate", lambda: admin.create_topics([NewTopic(prefix + "-validate", 2, 2)], timeout_ms=T,
                                                    validate_only=True))
    attempt("exists", lambda: admin.create_topics([NewTopic(prefix + "-counts", 1, 1)], timeout_ms=T))
elif action == "delete":
    attempt("delete", lambda: admin.delete_topics([prefix + "-counts", prefix + "-configs", prefix + "-assigned"],
                                                  timeout_ms=T))
    attempt("missing", lambda: admin.delete_topics([prefix + "-validate"], timeout_ms=T))
else:
    raise SystemExit("unknown action " + action)
admin.close()
print(json.dumps(out, sort_keys=True), flush=True)
