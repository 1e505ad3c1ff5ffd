// Package auth is the broker's authorization: the Authorizer interface KafkaApis consults before
// it serves a request, and SimpleAclAuthorizer, which keeps the ACLs of /kafka-acl/<ResourceType>/
// <name> in a cache refreshed by the /kafka-acl-changes notifications, with super.users and
// allow.everyone.if.no.acl.found.
//
// Kafka 0.10.2: kafka.security.auth (Authorizer, SimpleAclAuthorizer, Acl, Resource, ResourceType,
// Operation, PermissionType).
package auth
