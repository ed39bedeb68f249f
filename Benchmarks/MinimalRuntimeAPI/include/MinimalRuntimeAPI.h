// The smallest Lambda Runtime API a runtime client can run against: the benchmarks' floor for the
// emulator's own Runtime API server. It answers every `GET .../invocation/next` at once with one
// fixed event and accepts every `POST .../response`; one connection at a time, keep-alive.
#ifndef MINIMAL_RUNTIME_API_H
#define MINIMAL_RUNTIME_API_H

#include <stdint.h>

typedef struct minimal_runtime_api minimal_runtime_api;

// Listens on 127.0.0.1 (a free port) and serves on a thread of its own; NULL when it cannot.
minimal_runtime_api *minimal_runtime_api_start(void);

// The port it listens on.
int minimal_runtime_api_port(const minimal_runtime_api *server);

// How many `POST .../response` it accepted.
int64_t minimal_runtime_api_responses(const minimal_runtime_api *server);

// Stops listening, closes the connection it serves, waits for its thread and frees it.
void minimal_runtime_api_stop(minimal_runtime_api *server);

#endif
