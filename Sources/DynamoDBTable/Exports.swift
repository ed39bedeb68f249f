// The AWS plumbing the client signs and sends with (`AWSCredentials`, the transport, the
// configuration error) lives in AWSServices; re-exported so that `import DynamoDBTable` is all a
// program needs to construct a client, as it was before the move.
@_exported import AWSServices
