// See include/MinimalRuntimeAPI.h. Deliberately plain: blocking sockets, one thread, no parser
// beyond the request line and Content-Length, so that what it costs is the floor of any server.
#define _GNU_SOURCE  // memmem
#include "MinimalRuntimeAPI.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

struct minimal_runtime_api {
    int listener;
    int port;
    _Atomic int connection;
    _Atomic int64_t responses;
    pthread_t thread;
};

static const char next_answer[] =
    "HTTP/1.1 200 OK\r\n"
    "Content-Type: application/json\r\n"
    "Lambda-Runtime-Aws-Request-Id: 8476a536-e9f4-11e8-9739-2dfe598c3fcd\r\n"
    "Lambda-Runtime-Deadline-Ms: 4102444800000\r\n"
    "Lambda-Runtime-Invoked-Function-Arn: arn:aws:lambda:us-east-1:123456789012:function:echo\r\n"
    "Lambda-Runtime-Trace-Id: Root=1-5bef4de7-ad49b0e87f6ef6c87fc2e700;Sampled=0\r\n"
    "Content-Length: 48\r\n"
    "\r\n"
    "{\"type\":\"TOKEN\",\"authorizationToken\":\"Bearer x\"}";

static const char accepted_answer[] =
    "HTTP/1.1 202 Accepted\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{\"status\":\"OK\"}";

static const char not_found_answer[] =
    "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 51\r\n\r\n"
    "{\"errorMessage\":\"Not found\",\"errorType\":\"NotFound\"}";

static int write_all(int fd, const char *bytes, size_t count) {
    while (count > 0) {
        ssize_t written = send(fd, bytes, count, MSG_NOSIGNAL);
        if (written <= 0) return -1;
        bytes += written;
        count -= (size_t)written;
    }
    return 0;
}

// The value of Content-Length in a head that ends at `end`, or 0.
static size_t content_length(const char *head, const char *end) {
    static const char name[] = "\r\ncontent-length:";
    for (const char *at = head; at + sizeof(name) - 1 < end; at++) {
        if (strncasecmp(at, name, sizeof(name) - 1) == 0) return (size_t)strtoul(at + sizeof(name) - 1, NULL, 10);
    }
    return 0;
}

static int ends_with(const char *path, size_t length, const char *suffix) {
    size_t count = strlen(suffix);
    return length >= count && memcmp(path + length - count, suffix, count) == 0;
}

// Serves one connection's requests until the client closes it.
static void serve(minimal_runtime_api *server, int fd) {
    char buffer[65536];
    size_t held = 0;
    for (;;) {
        char *end = NULL;
        while ((end = memmem(buffer, held, "\r\n\r\n", 4)) == NULL) {
            if (held == sizeof(buffer)) return;
            ssize_t count = recv(fd, buffer + held, sizeof(buffer) - held, 0);
            if (count <= 0) return;
            held += (size_t)count;
        }
        end += 4;
        size_t head_length = (size_t)(end - buffer);
        size_t request_length = head_length + content_length(buffer, end);
        if (request_length > sizeof(buffer)) return;
        while (held < request_length) {
            ssize_t count = recv(fd, buffer + held, sizeof(buffer) - held, 0);
            if (count <= 0) return;
            held += (size_t)count;
        }
        const char *path = memchr(buffer, ' ', head_length);
        const char *path_end = path ? memchr(path + 1, ' ', (size_t)(end - path - 1)) : NULL;
        size_t path_length = path && path_end ? (size_t)(path_end - path - 1) : 0;
        int answered;
        if (strncmp(buffer, "GET ", 4) == 0 && ends_with(path + 1, path_length, "/invocation/next")) {
            answered = write_all(fd, next_answer, sizeof(next_answer) - 1);
        } else if (strncmp(buffer, "POST ", 5) == 0 && ends_with(path + 1, path_length, "/response")) {
            atomic_fetch_add(&server->responses, 1);
            answered = write_all(fd, accepted_answer, sizeof(accepted_answer) - 1);
        } else {
            answered = write_all(fd, not_found_answer, sizeof(not_found_answer) - 1);
        }
        if (answered != 0) return;
        memmove(buffer, buffer + request_length, held - request_length);
        held -= request_length;
    }
}

static void *accept_loop(void *argument) {
    minimal_runtime_api *server = argument;
    for (;;) {
        int fd = accept(server->listener, NULL, NULL);
        if (fd < 0) return NULL;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        atomic_store(&server->connection, fd);
        serve(server, fd);
        atomic_store(&server->connection, -1);
        close(fd);
    }
}

minimal_runtime_api *minimal_runtime_api_start(void) {
    minimal_runtime_api *server = calloc(1, sizeof(*server));
    if (server == NULL) return NULL;
    atomic_init(&server->connection, -1);
    atomic_init(&server->responses, 0);
    server->listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = 0};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (server->listener < 0 || bind(server->listener, (struct sockaddr *)&address, sizeof(address)) != 0
        || listen(server->listener, 32) != 0
        || getsockname(server->listener, (struct sockaddr *)&address, &length) != 0) {
        if (server->listener >= 0) close(server->listener);
        free(server);
        return NULL;
    }
    server->port = ntohs(address.sin_port);
    if (pthread_create(&server->thread, NULL, accept_loop, server) != 0) {
        close(server->listener);
        free(server);
        return NULL;
    }
    return server;
}

int minimal_runtime_api_port(const minimal_runtime_api *server) { return server->port; }

int64_t minimal_runtime_api_responses(const minimal_runtime_api *server) {
    return atomic_load(&((minimal_runtime_api *)server)->responses);
}

void minimal_runtime_api_stop(minimal_runtime_api *server) {
    shutdown(server->listener, SHUT_RDWR);
    int connection = atomic_load(&server->connection);
    if (connection >= 0) shutdown(connection, SHUT_RDWR);
    pthread_join(server->thread, NULL);
    close(server->listener);
    free(server);
}
