/*
 * The method table, taken from the service descriptors protoc-c generated from Protos/: nothing
 * here is written by hand, so a method added to a .proto file is callable after regenerating.
 */
#include <string.h>

#include "pushwire_client.h"
#include "pushwire/v1/admin.pb-c.h"
#include "pushwire/v1/categories.pb-c.h"
#include "pushwire/v1/devices.pb-c.h"
#include "pushwire/v1/health.pb-c.h"
#include "pushwire/v1/messages.pb-c.h"
#include "pushwire/v1/reflection.pb-c.h"

static const ProtobufCServiceDescriptor *const services[] = {
    &pushwire__v1__health__descriptor,     &pushwire__v1__reflection__descriptor,
    &pushwire__v1__admin__descriptor,      &pushwire__v1__devices__descriptor,
    &pushwire__v1__categories__descriptor, &pushwire__v1__messages__descriptor,
};
#define SERVICE_COUNT (sizeof services / sizeof services[0])

/* Finds "/<service full name>/<method>" without building strings. */
static const ProtobufCMethodDescriptor *find_method(const char *path) {
    if (path == NULL || path[0] != '/') return NULL;
    const char *slash = strchr(path + 1, '/');
    if (slash == NULL) return NULL;
    size_t service_len = (size_t)(slash - (path + 1));
    for (size_t s = 0; s < SERVICE_COUNT; s++) {
        const ProtobufCServiceDescriptor *svc = services[s];
        if (strlen(svc->name) != service_len || memcmp(svc->name, path + 1, service_len) != 0) continue;
        for (unsigned m = 0; m < svc->n_methods; m++) {
            if (strcmp(svc->methods[m].name, slash + 1) == 0) return &svc->methods[m];
        }
    }
    return NULL;
}

const ProtobufCMessageDescriptor *pw_method_input(const char *method) {
    const ProtobufCMethodDescriptor *m = find_method(method);
    return m ? m->input : NULL;
}

const ProtobufCMessageDescriptor *pw_method_output(const char *method) {
    const ProtobufCMethodDescriptor *m = find_method(method);
    return m ? m->output : NULL;
}

/* Depth-first search through message-typed fields; depth-bounded so a recursive type cannot loop. */
static const ProtobufCMessageDescriptor *search(const ProtobufCMessageDescriptor *d, const char *name,
                                                int depth) {
    if (d == NULL || depth > 12) return NULL;
    if (strcmp(d->name, name) == 0) return d;
    for (unsigned i = 0; i < d->n_fields; i++) {
        if (d->fields[i].type != PROTOBUF_C_TYPE_MESSAGE) continue;
        const ProtobufCMessageDescriptor *found = search(d->fields[i].descriptor, name, depth + 1);
        if (found) return found;
    }
    return NULL;
}

const ProtobufCMessageDescriptor *pw_message_descriptor(const char *full_name) {
    if (full_name == NULL) return NULL;
    const ProtobufCMessageDescriptor *found = search(&pushwire__v1__frame__descriptor, full_name, 0);
    for (size_t s = 0; s < SERVICE_COUNT && found == NULL; s++) {
        for (unsigned m = 0; m < services[s]->n_methods && found == NULL; m++) {
            found = search(services[s]->methods[m].input, full_name, 0);
            if (!found) found = search(services[s]->methods[m].output, full_name, 0);
        }
    }
    return found;
}
