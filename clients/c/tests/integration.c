/*
 * Integration test of the C client against a running pushwired:
 *   integration HOST PORT ADMIN_TOKEN
 * Health, Reflection, error statuses, pipelining and Ping always; then the registration flow
 * (application, device, categories sync not-modified and changed) and a message with a tap counted
 * — each step skipped, with the reason printed, when the server answers UNIMPLEMENTED. Prints "N passed, N failed, N skipped".
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pushwire_client.h"
#include "pushwire/v1/admin.pb-c.h"
#include "pushwire/v1/categories.pb-c.h"
#include "pushwire/v1/devices.pb-c.h"
#include "pushwire/v1/health.pb-c.h"
#include "pushwire/v1/messages.pb-c.h"
#include "pushwire/v1/reflection.pb-c.h"

static int passed, failed, skipped;
static pw_conn *conn;

static void result(int ok, const char *name, const char *detail) {
    if (ok) { passed++; printf("ok   - %s\n", name); }
    else { failed++; printf("FAIL - %s: %s\n", name, detail); }
}

static void skip(const char *name, const char *why) {
    skipped++;
    printf("skip - %s: %s\n", name, why);
}

/* One call; returns the transport result and fills status/response. */
static int call(const char *method, const ProtobufCMessage *req, const char *token,
                ProtobufCMessage **resp, pw_status *st) {
    char bearer[256];
    pw_metadata md = { "authorization", bearer };
    if (token) snprintf(bearer, sizeof bearer, "Bearer %s", token);
    return pw_call(conn, method, req, pw_method_output(method), 5000, token ? &md : NULL, token ? 1 : 0, resp, st);
}

/* Checks the code of a call expected to fail; frees any response. Returns 1 when the method is
 * UNIMPLEMENTED (and so was skipped). */
static int expect_code(const char *name, const char *method, const ProtobufCMessage *req, const char *token,
                       uint32_t want, uint32_t also) {
    ProtobufCMessage *resp = NULL;
    pw_status st;
    int rc = call(method, req, token, &resp, &st);
    if (resp) protobuf_c_message_free_unpacked(resp, NULL);
    char detail[400];
    if (rc == PW_OK && st.code == PW_STATUS_UNIMPLEMENTED && want != PW_STATUS_UNIMPLEMENTED) {
        snprintf(detail, sizeof detail, "%s answers UNIMPLEMENTED on this server", method);
        skip(name, detail);
        return 1;
    }
    snprintf(detail, sizeof detail, "rc=%s code=%s message=%s", pw_strerror(rc), pw_status_name(st.code), st.message);
    result(rc == PW_OK && (st.code == want || st.code == also), name, detail);
    return 0;
}

static void test_health_and_reflection(void) {
    Pushwire__V1__HealthCheckRequest hreq = PUSHWIRE__V1__HEALTH_CHECK_REQUEST__INIT;
    ProtobufCMessage *resp = NULL;
    pw_status st;
    int rc = call("/pushwire.v1.Health/Check", &hreq.base, NULL, &resp, &st);
    result(rc == PW_OK && st.code == 0 && resp &&
           ((Pushwire__V1__HealthCheckResponse *)resp)->status == PUSHWIRE__V1__SERVING_STATUS__SERVING_STATUS_SERVING,
           "Health/Check: SERVING", pw_strerror(rc));
    if (resp) protobuf_c_message_free_unpacked(resp, NULL);

    hreq.service = "pushwire.v1.NoSuchService";
    rc = call("/pushwire.v1.Health/Check", &hreq.base, NULL, &resp, &st);
    result(rc == PW_OK && st.code == 0 && resp &&
           ((Pushwire__V1__HealthCheckResponse *)resp)->status == PUSHWIRE__V1__SERVING_STATUS__SERVING_STATUS_SERVICE_UNKNOWN,
           "Health/Check of an unknown service: SERVICE_UNKNOWN", st.message);
    if (resp) protobuf_c_message_free_unpacked(resp, NULL);

    Pushwire__V1__ListMethodsRequest lreq = PUSHWIRE__V1__LIST_METHODS_REQUEST__INIT;
    rc = call("/pushwire.v1.Reflection/ListMethods", &lreq.base, NULL, &resp, &st);
    result(rc == PW_OK && st.code == 0 && resp, "Reflection/ListMethods", st.message);
    if (resp) {
        Pushwire__V1__ListMethodsResponse *l = (Pushwire__V1__ListMethodsResponse *)resp;
        int has_health = 0, types_agree = 1, sorted = 1;
        for (size_t i = 0; i < l->n_methods; i++) {
            const Pushwire__V1__MethodInfo *m = l->methods[i];
            if (strcmp(m->path, "/pushwire.v1.Health/Check") == 0) has_health = 1;
            if (i > 0 && strcmp(l->methods[i - 1]->path, m->path) >= 0) sorted = 0;
            const ProtobufCMessageDescriptor *in = pw_method_input(m->path), *out = pw_method_output(m->path);
            if (in && (strcmp(in->name, m->request_type) != 0 || strcmp(out->name, m->response_type) != 0)) {
                types_agree = 0;
                printf("     %s: server says %s -> %s\n", m->path, m->request_type, m->response_type);
            }
        }
        printf("     %zu methods listed\n", l->n_methods);
        result(has_health, "ListMethods lists Health/Check", "missing");
        result(sorted, "ListMethods is sorted by path", "not sorted");
        result(types_agree, "ListMethods types agree with the .proto files", "see above");
        protobuf_c_message_free_unpacked(resp, NULL);
    }
}

static void test_errors_pipelining_ping(void) {
    Pushwire__V1__HealthCheckRequest hreq = PUSHWIRE__V1__HEALTH_CHECK_REQUEST__INIT;
    expect_code("unknown method: UNIMPLEMENTED", "/pushwire.v1.Nope/Nothing", &hreq.base, NULL,
                PW_STATUS_UNIMPLEMENTED, PW_STATUS_UNIMPLEMENTED);

    static const uint8_t garbage[] = { 0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f }; /* a length past the end */
    uint32_t id = 0;
    ProtobufCMessage *resp = NULL;
    pw_status st;
    int rc = pw_send_raw(conn, "/pushwire.v1.Health/Check", garbage, sizeof garbage, 5000, NULL, 0, &id);
    if (rc == PW_OK) rc = pw_recv(conn, id, NULL, 5000, &resp, &st);
    char detail[400];
    snprintf(detail, sizeof detail, "rc=%s code=%s %s", pw_strerror(rc), pw_status_name(st.code), st.message);
    result(rc == PW_OK && st.code == PW_STATUS_INVALID_ARGUMENT, "undecodable request: INVALID_ARGUMENT", detail);

    enum { N = 64 };
    uint32_t ids[N];
    int sent = 1, all_ok = 1;
    for (int i = 0; i < N && sent; i++) {
        sent = pw_send(conn, "/pushwire.v1.Health/Check", &hreq.base, 5000, NULL, 0, &ids[i]) == PW_OK;
    }
    for (int i = N - 1; i >= 0 && sent; i--) { /* collected in reverse: answers are kept until claimed */
        rc = pw_recv(conn, ids[i], &pushwire__v1__health_check_response__descriptor, 5000, &resp, &st);
        if (rc != PW_OK || st.code != 0) all_ok = 0;
        if (resp) protobuf_c_message_free_unpacked(resp, NULL);
    }
    result(sent && all_ok && pw_in_flight(conn) == 0, "64 pipelined Health/Check calls", "a call failed");
    result(pw_ping(conn, 0x1234, 5000) == PW_OK, "Ping/Pong", "no pong");
}

static const char *PUSH_TOKEN = "5d1c7a3e5d1c7a3e5d1c7a3e5d1c7a3e5d1c7a3e5d1c7a3e5d1c7a3e5d1c7a3e";

/* A message with the YesNo category to one device (delivered to the server's file sink), a tap on
 * its Yes button, and GetMessageDetails counting the tap once the message is done. */
static void test_message_and_tap(const char *application, const char *token, const char *hwid, uint32_t yes_no_id) {
    ProtobufCMessage *resp = NULL;
    pw_status st;
    char *targets[1] = { (char *)hwid };
    Pushwire__V1__Targeting targeting = PUSHWIRE__V1__TARGETING__INIT;
    targeting.n_devices = 1;
    targeting.devices = targets;
    Pushwire__V1__Notification note = PUSHWIRE__V1__NOTIFICATION__INIT;
    note.content = "Coming tonight?";
    note.ios_category_id = yes_no_id;
    note.targeting = &targeting;
    Pushwire__V1__Notification *notes[1] = { &note };
    Pushwire__V1__CreateMessageRequest create = PUSHWIRE__V1__CREATE_MESSAGE_REQUEST__INIT;
    create.n_notifications = 1;
    create.notifications = notes;
    int rc = call("/pushwire.v1.Messages/CreateMessage", &create.base, token, &resp, &st);
    if (rc == PW_OK && st.code == PW_STATUS_UNIMPLEMENTED) { skip("message and tap", "CreateMessage is UNIMPLEMENTED"); return; }
    Pushwire__V1__CreateMessageResponse *created = (Pushwire__V1__CreateMessageResponse *)resp;
    int ok = rc == PW_OK && st.code == 0 && created && created->n_message_codes == 1 && created->n_unknown_devices == 0;
    result(ok, "CreateMessage to the device", st.message);
    char message_code[64] = "";
    if (ok) snprintf(message_code, sizeof message_code, "%s", created->message_codes[0]);
    if (resp) protobuf_c_message_free_unpacked(resp, NULL);
    if (!ok) return;

    Pushwire__V1__TrackActionRequest tap = PUSHWIRE__V1__TRACK_ACTION_REQUEST__INIT;
    tap.application = (char *)application;
    tap.hwid = (char *)hwid;
    tap.message_code = message_code;
    tap.kind = PUSHWIRE__V1__ACTION_KIND__ACTION_KIND_BUTTON;
    tap.category_id = yes_no_id;
    tap.button_id = 0;
    rc = call("/pushwire.v1.Devices/TrackAction", &tap.base, NULL, &resp, &st);
    result(rc == PW_OK && st.code == 0 && resp && ((Pushwire__V1__TrackActionResponse *)resp)->recorded,
           "TrackAction records a tap on Yes", st.message);
    if (resp) protobuf_c_message_free_unpacked(resp, NULL);

    Pushwire__V1__GetMessageDetailsRequest details = PUSHWIRE__V1__GET_MESSAGE_DETAILS_REQUEST__INIT;
    details.message_code = message_code;
    int counted = 0;
    for (int attempt = 0; attempt < 100 && !counted; attempt++) {  /* delivery may lag: up to 10 s */
        rc = call("/pushwire.v1.Messages/GetMessageDetails", &details.base, token, &resp, &st);
        Pushwire__V1__GetMessageDetailsResponse *d = (Pushwire__V1__GetMessageDetailsResponse *)resp;
        if (rc == PW_OK && st.code == 0 && d && d->status == PUSHWIRE__V1__MESSAGE_STATUS__MESSAGE_STATUS_DONE) {
            uint64_t yes_taps = 0;
            for (size_t i = 0; i < d->n_taps; i++) if (d->taps[i]->button_id == 0) yes_taps = d->taps[i]->count;
            counted = d->targeted == 1 && d->sent == 1 && yes_taps == 1;
        }
        if (resp) protobuf_c_message_free_unpacked(resp, NULL);
        resp = NULL;
        if (!counted) {
            struct timespec pause = { 0, 100 * 1000 * 1000 };
            nanosleep(&pause, NULL);
        }
    }
    result(counted, "GetMessageDetails: targeted 1, sent 1, one tap on Yes", st.message);
}

static void test_registration(const char *admin_token) {
    Pushwire__V1__ListApplicationsRequest list = PUSHWIRE__V1__LIST_APPLICATIONS_REQUEST__INIT;
    if (expect_code("Admin without a token: UNAUTHENTICATED", "/pushwire.v1.Admin/ListApplications", &list.base,
                    NULL, PW_STATUS_UNAUTHENTICATED, PW_STATUS_UNAUTHENTICATED)) {
        skip("registration flow", "the Admin service is not on this server");
        return;
    }
    expect_code("Admin with a wrong token: UNAUTHENTICATED or PERMISSION_DENIED", "/pushwire.v1.Admin/ListApplications",
                &list.base, "wrong-token", PW_STATUS_UNAUTHENTICATED, PW_STATUS_PERMISSION_DENIED);

    Pushwire__V1__CreateApplicationRequest create = PUSHWIRE__V1__CREATE_APPLICATION_REQUEST__INIT;
    create.name = "c-integration";
    ProtobufCMessage *resp = NULL;
    pw_status st;
    int rc = call("/pushwire.v1.Admin/CreateApplication", &create.base, admin_token, &resp, &st);
    Pushwire__V1__CreateApplicationResponse *app = (Pushwire__V1__CreateApplicationResponse *)resp;
    result(rc == PW_OK && st.code == 0 && app && app->application && app->application->code[0] && app->access_token[0],
           "Admin/CreateApplication", st.message);
    if (!app || !app->application) { if (resp) protobuf_c_message_free_unpacked(resp, NULL); return; }
    char code[64], token[128];
    snprintf(code, sizeof code, "%s", app->application->code);
    snprintf(token, sizeof token, "%s", app->access_token);
    protobuf_c_message_free_unpacked(resp, NULL);
    printf("     application %s\n", code);

    Pushwire__V1__RegisterDeviceRequest reg = PUSHWIRE__V1__REGISTER_DEVICE_REQUEST__INIT;
    reg.application = code;
    reg.push_token = (char *)PUSH_TOKEN;
    reg.device_type = PUSHWIRE__V1__DEVICE_TYPE__DEVICE_TYPE_IOS;
    reg.language = "en";
    expect_code("RegisterDevice with an empty hwid: INVALID_ARGUMENT", "/pushwire.v1.Devices/RegisterDevice",
                &reg.base, NULL, PW_STATUS_INVALID_ARGUMENT, PW_STATUS_INVALID_ARGUMENT);
    reg.hwid = "c-device-1";
    reg.application = "NOAPP-00000";
    expect_code("RegisterDevice of an unknown application: NOT_FOUND", "/pushwire.v1.Devices/RegisterDevice",
                &reg.base, NULL, PW_STATUS_NOT_FOUND, PW_STATUS_NOT_FOUND);
    reg.application = code;
    rc = call("/pushwire.v1.Devices/RegisterDevice", &reg.base, NULL, &resp, &st);
    if (rc == PW_OK && st.code == PW_STATUS_UNIMPLEMENTED) { skip("registration flow", "RegisterDevice is UNIMPLEMENTED"); return; }
    Pushwire__V1__RegisterDeviceResponse *r = (Pushwire__V1__RegisterDeviceResponse *)resp;
    int has_yes_no = 0;
    uint32_t yes_no_id = 0;
    for (size_t i = 0; r && i < r->n_ios_categories; i++) {
        if (strcmp(r->ios_categories[i]->name, "YesNo") == 0) {
            has_yes_no = 1;
            yes_no_id = r->ios_categories[i]->category_id;
        }
    }
    result(rc == PW_OK && st.code == 0 && has_yes_no, "RegisterDevice returns the YesNo category", st.message);
    uint64_t version = r ? r->categories_version : 0;
    size_t count = r ? r->n_ios_categories : 0;
    if (resp) protobuf_c_message_free_unpacked(resp, NULL);

    Pushwire__V1__SyncCategoriesRequest sync = PUSHWIRE__V1__SYNC_CATEGORIES_REQUEST__INIT;
    sync.application = code;
    sync.known_version = version;
    rc = call("/pushwire.v1.Devices/SyncCategories", &sync.base, NULL, &resp, &st);
    result(rc == PW_OK && st.code == 0 && resp && ((Pushwire__V1__SyncCategoriesResponse *)resp)->not_modified,
           "SyncCategories with the current version: not_modified", st.message);
    if (resp) protobuf_c_message_free_unpacked(resp, NULL);

    Pushwire__V1__Button rate = PUSHWIRE__V1__BUTTON__INIT, later = PUSHWIRE__V1__BUTTON__INIT;
    rate.id = 0; rate.label = "Rate"; rate.start_application = 1; rate.authentication_required = 1;
    rate.behavior = PUSHWIRE__V1__BUTTON_BEHAVIOR__BUTTON_BEHAVIOR_DEFAULT;
    later.id = 1; later.label = "Later"; later.behavior = PUSHWIRE__V1__BUTTON_BEHAVIOR__BUTTON_BEHAVIOR_DEFAULT;
    Pushwire__V1__Button *buttons[2] = { &rate, &later };
    Pushwire__V1__Category category = PUSHWIRE__V1__CATEGORY__INIT;
    category.name = "RateLater";
    category.n_buttons = 2;
    category.buttons = buttons;
    Pushwire__V1__UpsertCategoryRequest upsert = PUSHWIRE__V1__UPSERT_CATEGORY_REQUEST__INIT;
    upsert.category = &category;
    expect_code("UpsertCategory without a token: UNAUTHENTICATED", "/pushwire.v1.Categories/UpsertCategory",
                &upsert.base, NULL, PW_STATUS_UNAUTHENTICATED, PW_STATUS_UNAUTHENTICATED);
    rc = call("/pushwire.v1.Categories/UpsertCategory", &upsert.base, token, &resp, &st);
    if (rc == PW_OK && st.code == PW_STATUS_UNIMPLEMENTED) { skip("categories changed", "UpsertCategory is UNIMPLEMENTED"); return; }
    uint64_t new_version = resp ? ((Pushwire__V1__UpsertCategoryResponse *)resp)->categories_version : 0;
    result(rc == PW_OK && st.code == 0 && new_version > version, "UpsertCategory bumps the version", st.message);
    if (resp) protobuf_c_message_free_unpacked(resp, NULL);

    rc = call("/pushwire.v1.Devices/SyncCategories", &sync.base, NULL, &resp, &st);
    Pushwire__V1__SyncCategoriesResponse *s = (Pushwire__V1__SyncCategoriesResponse *)resp;
    result(rc == PW_OK && st.code == 0 && s && !s->not_modified && s->version == new_version &&
           s->n_categories == count + 1, "SyncCategories with the old version: the new set", st.message);
    if (resp) protobuf_c_message_free_unpacked(resp, NULL);

    reg.known_categories_version = new_version;
    rc = call("/pushwire.v1.Devices/RegisterDevice", &reg.base, NULL, &resp, &st);
    result(rc == PW_OK && st.code == 0 && resp && ((Pushwire__V1__RegisterDeviceResponse *)resp)->categories_not_modified,
           "RegisterDevice with the current version: categories_not_modified", st.message);
    if (resp) protobuf_c_message_free_unpacked(resp, NULL);

    test_message_and_tap(code, token, reg.hwid, yes_no_id);
}

/* HOST PORT ADMIN_TOKEN [--ca-file F] [--server-name N] [--client-cert F --client-key F]
 * [--expect-tls-failure TEXT]: with --ca-file the run is over TLS (a build with TLS=1); with
 * --expect-tls-failure it only checks that connecting fails with PW_ERR_TLS and a reason
 * containing TEXT. */
int main(int argc, char **argv) {
    if (argc < 4 || (argc - 4) % 2 != 0) {
        fprintf(stderr, "usage: %s HOST PORT ADMIN_TOKEN [--ca-file F] [--server-name N] "
                        "[--client-cert F --client-key F] [--expect-tls-failure TEXT]\n", argv[0]);
        return 64;
    }
    pw_tls_options tls = { 0 };
    int use_tls = 0;
    const char *expected_failure = NULL;
    for (int i = 4; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--ca-file") == 0) tls.ca_file = argv[i + 1];
        else if (strcmp(argv[i], "--server-name") == 0) tls.server_name = argv[i + 1];
        else if (strcmp(argv[i], "--client-cert") == 0) tls.client_cert = argv[i + 1];
        else if (strcmp(argv[i], "--client-key") == 0) tls.client_key = argv[i + 1];
        else if (strcmp(argv[i], "--expect-tls-failure") == 0) expected_failure = argv[i + 1];
        else { fprintf(stderr, "unknown option %s\n", argv[i]); return 64; }
        use_tls = 1;
    }
    char why[256] = "";
    /* A TLS handshake under valgrind on a loaded machine takes seconds (mbedtls's ECC in C). */
    int rc = use_tls ? pw_connect_tls(argv[1], (uint16_t)atoi(argv[2]), 30000, &tls, &conn, why, sizeof why)
                     : pw_connect(argv[1], (uint16_t)atoi(argv[2]), 5000, &conn);
    if (expected_failure != NULL) {
        result(rc == PW_ERR_TLS && strstr(why, expected_failure) != NULL,
               "TLS connect refused with the expected reason", why);
        printf("  (%s: %s)\n", pw_strerror(rc), why);
        if (rc == PW_OK) pw_close(conn);
        printf("integration: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
        return failed == 0 ? 0 : 1;
    }
    if (rc != PW_OK) {
        printf("FAIL - connect: %s %s\n0 passed, 1 failed, 0 skipped\n", pw_strerror(rc), why);
        return 1;
    }
    test_health_and_reflection();
    test_errors_pipelining_ping();
    test_registration(argv[3]);
    pw_close(conn);
    printf("integration: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed == 0 ? 0 : 1;
}
