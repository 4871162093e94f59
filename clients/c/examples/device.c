/*
 * device — the compact client of a real device, on the Pushwire C client:
 *   1. registers the device (Devices/RegisterDevice) and prints the categories it gets back;
 *   2. syncs its categories with the version it now knows (Devices/SyncCategories): the server
 *      should answer not_modified;
 *   3. given a received notification's message code ("pw_msg") and category ("aps.category"),
 *      reports a tap on a button of that category, the message's own (Devices/TrackAction);
 *      given only the message code, reports an open.
 *
 *   device [--host H] [--port P] [--timeout MS] [--message-code CODE [--category ID [--button ID]]]
 *          APPLICATION HWID PUSH_TOKEN
 *
 * --button defaults to the category's first button. Exit status: 0 on success, 1 when a call
 * fails (or the category or button is not among those registered), 2 when the connection fails,
 * 64 on bad arguments.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pushwire_client.h"
#include "pushwire/v1/devices.pb-c.h"

static void print_categories(size_t n, Pushwire__V1__Category **categories) {
    for (size_t i = 0; i < n; i++) {
        const Pushwire__V1__Category *c = categories[i];
        printf("  category %u \"%s\":", c->category_id, c->name);
        for (size_t b = 0; b < c->n_buttons; b++) {
            const Pushwire__V1__Button *btn = c->buttons[b];
            printf(" [%u \"%s\"%s%s%s]", btn->id, btn->label, btn->start_application ? " foreground" : "",
                   btn->destructive ? " destructive" : "", btn->authentication_required ? " auth" : "");
        }
        printf("\n");
    }
}

static int usage(const char *argv0) {
    fprintf(stderr, "usage: %s [--host H] [--port P] [--timeout MS] [--message-code CODE [--category ID [--button ID]]] "
                    "APPLICATION HWID PUSH_TOKEN\n", argv0);
    return 64;
}

int main(int argc, char **argv) {
    const char *host = "127.0.0.1", *message_code = NULL;
    long port = 7355, timeout_ms = 5000, category_id = 0, button_id = -1;
    const char *positional[3];
    int n_positional = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--host") == 0 && i + 1 < argc) host = argv[++i];
        else if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) port = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) timeout_ms = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--message-code") == 0 && i + 1 < argc) message_code = argv[++i];
        else if (strcmp(argv[i], "--category") == 0 && i + 1 < argc) category_id = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--button") == 0 && i + 1 < argc) button_id = strtol(argv[++i], NULL, 10);
        else if (argv[i][0] == '-' || n_positional == 3) return usage(argv[0]);
        else positional[n_positional++] = argv[i];
    }
    if (n_positional != 3 || port <= 0 || port > 65535 || timeout_ms <= 0 || category_id < 0 || category_id > UINT32_MAX
        || button_id < -1 || button_id > UINT32_MAX || (category_id == 0 && button_id >= 0)
        || (message_code == NULL && category_id != 0)) return usage(argv[0]);
    const char *application = positional[0], *hwid = positional[1], *push_token = positional[2];

    pw_conn *conn = NULL;
    int rc = pw_connect(host, (uint16_t)port, (int)timeout_ms, &conn);
    if (rc != PW_OK) {
        fprintf(stderr, "connect %s:%ld: %s\n", host, port, pw_strerror(rc));
        return 2;
    }
    const Pushwire__V1__Settings *settings = pw_settings(conn);
    printf("connected: %s %s, max frame %u bytes, %u calls in flight\n", settings->server_name,
           settings->server_version, settings->max_frame_size, settings->max_concurrent_calls);

    int exit_code = 0;
    pw_status status;
    ProtobufCMessage *answer = NULL;

    /* 1. Register. */
    Pushwire__V1__RegisterDeviceRequest reg = PUSHWIRE__V1__REGISTER_DEVICE_REQUEST__INIT;
    reg.application = (char *)application;
    reg.hwid = (char *)hwid;
    reg.push_token = (char *)push_token;
    reg.device_type = PUSHWIRE__V1__DEVICE_TYPE__DEVICE_TYPE_IOS;
    reg.language = "en";
    rc = pw_call(conn, "/pushwire.v1.Devices/RegisterDevice", &reg.base,
                 &pushwire__v1__register_device_response__descriptor, (int)timeout_ms, NULL, 0, &answer, &status);
    if (rc != PW_OK || status.code != PW_STATUS_OK) {
        fprintf(stderr, "register: %s\n", rc != PW_OK ? pw_strerror(rc) : status.message);
        printf("register: %s\n", rc != PW_OK ? "transport error" : pw_status_name(status.code));
        pw_close(conn);
        return rc != PW_OK ? 2 : 1;
    }
    Pushwire__V1__RegisterDeviceResponse *registered = (Pushwire__V1__RegisterDeviceResponse *)answer;
    uint64_t version = registered->categories_version;
    printf("registered: categories_version=%llu categories=%zu\n", (unsigned long long)version,
           registered->n_ios_categories);
    print_categories(registered->n_ios_categories, registered->ios_categories);
    /* The button to tap belongs to the notification's own category, found among those registered. */
    int can_tap = 0;
    uint32_t tap_button = 0;
    for (size_t i = 0; category_id != 0 && i < registered->n_ios_categories; i++) {
        const Pushwire__V1__Category *c = registered->ios_categories[i];
        if (c->category_id != (uint32_t)category_id) continue;
        for (size_t b = 0; b < c->n_buttons; b++) {
            if (button_id < 0 || c->buttons[b]->id == (uint32_t)button_id) {
                tap_button = c->buttons[b]->id;
                can_tap = 1;
                break;
            }
        }
    }
    protobuf_c_message_free_unpacked(answer, NULL);

    /* 2. Sync with the version just received: nothing should have changed. */
    Pushwire__V1__SyncCategoriesRequest sync = PUSHWIRE__V1__SYNC_CATEGORIES_REQUEST__INIT;
    sync.application = (char *)application;
    sync.known_version = version;
    rc = pw_call(conn, "/pushwire.v1.Devices/SyncCategories", &sync.base,
                 &pushwire__v1__sync_categories_response__descriptor, (int)timeout_ms, NULL, 0, &answer, &status);
    if (rc != PW_OK || status.code != PW_STATUS_OK) {
        printf("sync: %s %s\n", rc != PW_OK ? pw_strerror(rc) : pw_status_name(status.code), status.message);
        exit_code = rc != PW_OK ? 2 : 1;
    } else {
        Pushwire__V1__SyncCategoriesResponse *synced = (Pushwire__V1__SyncCategoriesResponse *)answer;
        if (synced->not_modified) {
            printf("sync: not_modified version=%llu\n", (unsigned long long)version);
        } else {
            printf("sync: changed version=%llu categories=%zu\n", (unsigned long long)synced->version,
                   synced->n_categories);
            print_categories(synced->n_categories, synced->categories);
        }
        protobuf_c_message_free_unpacked(answer, NULL);
    }

    /* 3. Report what the user did: a tap on a button of the message's category, or an open. */
    if (message_code == NULL) {
        /* A real device reads the code from the notification's "pw_msg" key. */
        printf("track_action: skipped, no --message-code (the \"pw_msg\" value of a received notification)\n");
    } else if (category_id != 0 && !can_tap) {
        printf("track_action: category %ld has no button %ld among the registered categories\n", category_id, button_id);
        exit_code = 1;
    } else {
        Pushwire__V1__TrackActionRequest tap = PUSHWIRE__V1__TRACK_ACTION_REQUEST__INIT;
        tap.application = (char *)application;
        tap.hwid = (char *)hwid;
        tap.message_code = (char *)message_code;
        if (category_id != 0) {
            tap.kind = PUSHWIRE__V1__ACTION_KIND__ACTION_KIND_BUTTON;
            tap.category_id = (uint32_t)category_id;
            tap.button_id = tap_button;
        } else {
            tap.kind = PUSHWIRE__V1__ACTION_KIND__ACTION_KIND_OPEN;
        }
        rc = pw_call(conn, "/pushwire.v1.Devices/TrackAction", &tap.base,
                     &pushwire__v1__track_action_response__descriptor, (int)timeout_ms, NULL, 0, &answer, &status);
        if (rc != PW_OK) {
            printf("track_action: %s\n", pw_strerror(rc));
            exit_code = 2;
        } else if (status.code != PW_STATUS_OK) {
            printf("track_action: %s %s\n", pw_status_name(status.code), status.message);
            exit_code = 1;
        } else if (category_id != 0) {
            printf("track_action: recorded=%s category=%ld button=%u\n",
                   ((Pushwire__V1__TrackActionResponse *)answer)->recorded ? "true" : "false", category_id, tap_button);
            protobuf_c_message_free_unpacked(answer, NULL);
        } else {
            printf("track_action: recorded=%s open\n", ((Pushwire__V1__TrackActionResponse *)answer)->recorded ? "true" : "false");
            protobuf_c_message_free_unpacked(answer, NULL);
        }
    }
    pw_close(conn);
    return exit_code;
}
