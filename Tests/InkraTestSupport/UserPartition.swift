import InkraUsage

/// The partition of a user's items as the usage store names it under the development secret:
/// `USER#` and the keyed pseudonym of the id, for a test that reads the table back (the table holds
/// no user id, docs/table.md).
package func userPartition(_ userID: String) -> String { "USER#" + ServerSecret.development.userKey(userID) }

/// The keyed pseudonym that names a user in the table (and in listings of it, such as refusals)
/// under the development secret.
package func userKey(_ userID: String) -> String { ServerSecret.development.userKey(userID) }
