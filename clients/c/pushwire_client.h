/*
 * pushwire_client.h — a small blocking C11 client for the Pushwire wire protocol v1.
 *
 * Depends only on libc and libprotobuf-c. Messages are the protoc-c structs generated from
 * the Protos/pushwire/v1 files (Sources/PushwireProtoC), e.g. Pushwire__V1__RegisterDeviceRequest.
 *
 * Ownership, in one rule: every message this library hands you (the `response` of pw_call and
 * pw_recv) was unpacked by protobuf-c and is yours: free it once with
 * protobuf_c_message_free_unpacked(msg, NULL). Everything else is owned by the connection and
 * released by pw_close.
 *
 * A connection is not thread-safe: use it from one thread at a time (or guard it with a mutex).
 */
#ifndef PUSHWIRE_CLIENT_H
#define PUSHWIRE_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "pushwire/v1/rpc.pb-c.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Transport-level results of the functions below. A call that reached the server and got an
 * answer returns PW_OK, whatever the answer's status code: read the status for that. */
typedef enum pw_error {
    PW_OK = 0,
    PW_ERR_SYSTEM = -1,          /* a system call failed; errno says which error */
    PW_ERR_RESOLVE = -2,         /* the host name did not resolve */
    PW_ERR_TIMEOUT = -3,         /* the local timeout passed before the answer arrived */
    PW_ERR_CLOSED = -4,          /* the server closed the connection */
    PW_ERR_BAD_PREFACE = -5,     /* the server did not answer with "PWIRE/1\n" */
    PW_ERR_PROTOCOL = -6,        /* the server sent something the protocol does not allow */
    PW_ERR_FRAME_TOO_LARGE = -7, /* a frame exceeds the size limit of its receiver */
    PW_ERR_NO_MEMORY = -8,       /* malloc failed */
    PW_ERR_INVALID_ARGUMENT = -9,/* the caller passed a NULL or otherwise unusable argument */
    PW_ERR_DECODE = -10,         /* the response body does not decode as the expected message */
    PW_ERR_GOING_AWAY = -11,     /* the server sent GoAway and will not process this call:
                                    it is safe to retry it on a new connection */
    PW_ERR_UNKNOWN_CALL = -12,   /* no call with that id is in flight on this connection */
    PW_ERR_IDS_EXHAUSTED = -13,  /* all 2^32-1 call ids were used: open a new connection */
    PW_ERR_TLS = -14,            /* the TLS handshake failed or the server's certificate did not
                                    verify (pw_connect_tls says why), or a TLS record was bad */
    PW_ERR_NO_TLS = -15          /* this build has no TLS: build with `make TLS=1` */
} pw_error;

/* The 17 gRPC status codes, as carried in Status.code. */
typedef enum pw_status_code {
    PW_STATUS_OK = 0,
    PW_STATUS_CANCELLED = 1,
    PW_STATUS_UNKNOWN = 2,
    PW_STATUS_INVALID_ARGUMENT = 3,
    PW_STATUS_DEADLINE_EXCEEDED = 4,
    PW_STATUS_NOT_FOUND = 5,
    PW_STATUS_ALREADY_EXISTS = 6,
    PW_STATUS_PERMISSION_DENIED = 7,
    PW_STATUS_RESOURCE_EXHAUSTED = 8,
    PW_STATUS_FAILED_PRECONDITION = 9,
    PW_STATUS_ABORTED = 10,
    PW_STATUS_OUT_OF_RANGE = 11,
    PW_STATUS_UNIMPLEMENTED = 12,
    PW_STATUS_INTERNAL = 13,
    PW_STATUS_UNAVAILABLE = 14,
    PW_STATUS_DATA_LOSS = 15,
    PW_STATUS_UNAUTHENTICATED = 16
} pw_status_code;

/* Longest status message kept (longer messages are truncated, never overflow). */
#define PW_STATUS_MESSAGE_MAX 256

/* The outcome of one call, as the server reported it. Plain value: nothing to free. */
typedef struct pw_status {
    uint32_t code;                          /* a pw_status_code */
    char message[PW_STATUS_MESSAGE_MAX];    /* NUL-terminated, empty on OK */
} pw_status;

/* One request metadata entry, e.g. { "authorization", "Bearer 3f2a..." }. Keys are lower-case. */
typedef struct pw_metadata {
    const char *key;
    const char *value;
} pw_metadata;

/* An open connection. Opaque. */
typedef struct pw_conn pw_conn;

/* The preface both sides send first. */
#define PW_PREFACE "PWIRE/1\n"
#define PW_PREFACE_SIZE 8
/* The largest frame this client accepts from the server unless told otherwise. */
#define PW_DEFAULT_MAX_FRAME_SIZE (4u * 1024u * 1024u)

/* A short English description of a pw_error value. Never NULL. */
const char *pw_strerror(int error);

/* The status code's canonical name, e.g. "INVALID_ARGUMENT"; "UNKNOWN_CODE" above 16. */
const char *pw_status_name(uint32_t code);

/*
 * Connects to host:port (a name, an IPv4 or an IPv6 literal), sends the preface, reads the
 * server's preface and its Settings frame. timeout_ms bounds the whole exchange (<= 0: 10 s).
 * On success *out is a connection to release with pw_close. On failure *out is NULL and errno
 * is kept for PW_ERR_SYSTEM.
 */
int pw_connect(const char *host, uint16_t port, int timeout_ms, pw_conn **out);

/* How pw_connect_tls verifies the server. Verification is never optional. */
typedef struct pw_tls_options {
    const char *ca_file;     /* PEM CA certificates to trust; NULL: the system's bundle
                                (/etc/ssl/certs/ca-certificates.crt) */
    const char *server_name; /* the DNS name the certificate must carry, also sent as SNI;
                                NULL: host. mbedtls 2.28 matches DNS names only, so connecting to
                                an IP address needs a name here */
    const char *client_cert; /* optional PEM client certificate (chain), presented if asked */
    const char *client_key;  /* its PEM key; NULL: in client_cert's file */
} pw_tls_options;

/*
 * pw_connect over TLS (TLS 1.2 or later, ALPN "pwire/1"): the handshake runs within timeout_ms
 * before the preface. On PW_ERR_TLS, why (may be NULL) holds a one-line reason, e.g.
 * "TLS: certificate verification failed for localhost: The certificate is not correctly signed
 * by the trusted CA". Returns PW_ERR_NO_TLS in a build without TLS.
 */
int pw_connect_tls(const char *host, uint16_t port, int timeout_ms, const pw_tls_options *tls,
                   pw_conn **out, char *why, size_t why_size);

/* Closes the socket and frees everything the connection owns, including unclaimed answers.
 * NULL is ignored. */
void pw_close(pw_conn *conn);

/* The Settings the server announced (owned by the connection, valid until pw_close). */
const Pushwire__V1__Settings *pw_settings(const pw_conn *conn);

/*
 * One blocking unary call: sends `request` to `method` ("/pushwire.v1.Health/Check"), waits at
 * most timeout_ms (also sent to the server as the call's deadline; <= 0: no local limit and the
 * server's default deadline), and returns PW_OK once the server answered. Then *status holds the
 * answer's status, and when it is OK, *response holds the decoded `response_descriptor` message
 * (yours to free); otherwise *response is NULL. metadata may be NULL when metadata_count is 0.
 * On PW_ERR_TIMEOUT the call is cancelled on the server (a Cancel frame is sent).
 */
int pw_call(pw_conn *conn, const char *method, const ProtobufCMessage *request,
            const ProtobufCMessageDescriptor *response_descriptor, int timeout_ms,
            const pw_metadata *metadata, size_t metadata_count,
            ProtobufCMessage **response, pw_status *status);

/*
 * Pipelining, first half: sends a request without waiting and stores its call id in *call_id.
 * Send several, then collect each answer with pw_recv, in any order. timeout_ms is the deadline
 * sent to the server (0: the server's default); it also bounds the time spent writing and, when
 * Settings.max_concurrent_calls calls are already in flight, the time spent waiting (reading
 * answers, kept for pw_recv) until one of them finishes. Call ids are 1, 2, 3, … and never reused.
 */
int pw_send(pw_conn *conn, const char *method, const ProtobufCMessage *request, int timeout_ms,
            const pw_metadata *metadata, size_t metadata_count, uint32_t *call_id);

/* As pw_send, with the request message already encoded (body may be NULL when body_len is 0):
 * for forwarding, for messages built by other encoders, and for testing the server's checks. */
int pw_send_raw(pw_conn *conn, const char *method, const uint8_t *body, size_t body_len,
                int timeout_ms, const pw_metadata *metadata, size_t metadata_count, uint32_t *call_id);

/*
 * Pipelining, second half: waits at most timeout_ms (<= 0: forever) for the answer to call_id,
 * keeping answers to other calls that arrive meanwhile for their own pw_recv. Results as pw_call.
 * A call that timed out locally stays in flight: call pw_recv again or pw_cancel it.
 */
int pw_recv(pw_conn *conn, uint32_t call_id, const ProtobufCMessageDescriptor *response_descriptor,
            int timeout_ms, ProtobufCMessage **response, pw_status *status);

/* Abandons call_id: sends Cancel and drops the answer whenever it comes. */
int pw_cancel(pw_conn *conn, uint32_t call_id);

/* Sends Ping(payload) and waits at most timeout_ms for the matching Pong; answers to calls that
 * arrive meanwhile are kept for pw_recv. */
int pw_ping(pw_conn *conn, uint64_t payload, int timeout_ms);

/* How many calls were sent and not yet answered or cancelled. */
size_t pw_in_flight(const pw_conn *conn);

/* Helpers for the method table of the .proto services: the request and response descriptors of
 * a method path, or NULL when the path is not a pushwire.v1 method. */
const ProtobufCMessageDescriptor *pw_method_input(const char *method);
const ProtobufCMessageDescriptor *pw_method_output(const char *method);

/* The descriptor of a fully qualified message name ("pushwire.v1.Category") reachable from the
 * pushwire.v1 services or the Frame, or NULL. */
const ProtobufCMessageDescriptor *pw_message_descriptor(const char *full_name);

#ifdef __cplusplus
}
#endif

#endif /* PUSHWIRE_CLIENT_H */
