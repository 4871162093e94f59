/* Names for the client's error values and the 17 status codes. */
#include "pushwire_client.h"

const char *pw_strerror(int error) {
    switch (error) {
    case PW_OK: return "ok";
    case PW_ERR_SYSTEM: return "system call failed (see errno)";
    case PW_ERR_RESOLVE: return "host name did not resolve";
    case PW_ERR_TIMEOUT: return "timed out";
    case PW_ERR_CLOSED: return "connection closed by the server";
    case PW_ERR_BAD_PREFACE: return "server did not answer with the PWIRE/1 preface";
    case PW_ERR_PROTOCOL: return "protocol violation by the server";
    case PW_ERR_FRAME_TOO_LARGE: return "frame larger than the receiver's limit";
    case PW_ERR_NO_MEMORY: return "out of memory";
    case PW_ERR_INVALID_ARGUMENT: return "invalid argument";
    case PW_ERR_DECODE: return "response does not decode as the expected message";
    case PW_ERR_GOING_AWAY: return "server is going away; call not processed, retry elsewhere";
    case PW_ERR_UNKNOWN_CALL: return "no such call in flight";
    case PW_ERR_IDS_EXHAUSTED: return "call ids exhausted; open a new connection";
    case PW_ERR_TLS: return "TLS handshake, certificate verification or record failed";
    case PW_ERR_NO_TLS: return "built without TLS (make TLS=1)";
    default: return "unknown error";
    }
}

const char *pw_status_name(uint32_t code) {
    static const char *const names[] = {
        "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
        "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
        "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
        "UNAUTHENTICATED",
    };
    return code < sizeof names / sizeof names[0] ? names[code] : "UNKNOWN_CODE";
}
