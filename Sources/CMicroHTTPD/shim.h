#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <microhttpd.h>

/*
 * Swift cannot call C-variadic functions, and several of libmicrohttpd's entry points are
 * variadic (MHD_start_daemon, MHD_get_daemon_info, MHD_get_connection_info,
 * MHD_set_connection_option). These static inline wrappers give each use a fixed signature.
 * Daemon options are passed as one MHD_OPTION_ARRAY built on the Swift side.
 */

/** Starts a daemon with every option taken from `options` (terminated by MHD_OPTION_END). */
static inline struct MHD_Daemon *
cmhd_start_daemon(unsigned int flags, uint16_t port,
                  MHD_AccessHandlerCallback handler, void *handler_cls,
                  const struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/** An option item with a plain integer value (limits, sizes, counts). */
static inline struct MHD_OptionItem cmhd_option_value(enum MHD_OPTION option, intptr_t value) {
    struct MHD_OptionItem item = { option, value, NULL };
    return item;
}

/** An option item with a single pointer argument (MHD_OPTION_SOCK_ADDR). */
static inline struct MHD_OptionItem cmhd_option_pointer(enum MHD_OPTION option, void *pointer) {
    struct MHD_OptionItem item = { option, 0, pointer };
    return item;
}

static inline struct MHD_OptionItem cmhd_option_end(void) {
    struct MHD_OptionItem item = { MHD_OPTION_END, 0, NULL };
    return item;
}

/* Options taking a function pointer and its closure: the function goes in `value` as intptr_t. */
static inline struct MHD_OptionItem
cmhd_option_notify_completed(MHD_RequestCompletedCallback callback, void *cls) {
    struct MHD_OptionItem item = { MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)callback, cls };
    return item;
}

static inline struct MHD_OptionItem
cmhd_option_notify_connection(MHD_NotifyConnectionCallback callback, void *cls) {
    struct MHD_OptionItem item = { MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)callback, cls };
    return item;
}

/*
 * Leaves the URL path and query arguments exactly as received, so that the Swift side decodes
 * percent-escapes itself and can answer 400 with a reason on a malformed escape or on invalid
 * UTF-8, and can tell an encoded slash (%2F) from a real one.
 */
static inline size_t cmhd_unescape_nothing(void *cls, struct MHD_Connection *connection, char *s) {
    (void)cls; (void)connection;
    return strlen(s);
}

static inline struct MHD_OptionItem cmhd_option_raw_urls(void) {
    struct MHD_OptionItem item = { MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)cmhd_unescape_nothing, NULL };
    return item;
}

/** The port the daemon listens on (the chosen one when 0 was asked), or 0. */
static inline uint16_t cmhd_daemon_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/** The socket context set by the connection-notification callback, or NULL. */
static inline void *cmhd_connection_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/** Sets this connection's idle timeout in seconds (0: none, used for event streams). */
static inline enum MHD_Result cmhd_connection_set_timeout(struct MHD_Connection *connection,
                                                          unsigned int seconds) {
    return MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}

/**
 * The peer's address as text (an IPv4 or IPv6 literal) into `buffer`; 0 on success, -1 when
 * the connection has no address libmicrohttpd can give.
 */
static inline int cmhd_connection_client_address(struct MHD_Connection *connection, char *buffer, socklen_t length) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return -1;
    const struct sockaddr *address = info->client_addr;
    const void *raw;
    if (address->sa_family == AF_INET) {
        raw = &((const struct sockaddr_in *)address)->sin_addr;
    } else if (address->sa_family == AF_INET6) {
        raw = &((const struct sockaddr_in6 *)address)->sin6_addr;
    } else {
        return -1;
    }
    return inet_ntop(address->sa_family, raw, buffer, length) == NULL ? -1 : 0;
}

/* Macros that do not import into Swift. */
static inline uint64_t cmhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }
static inline ssize_t cmhd_reader_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
static inline ssize_t cmhd_reader_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }

#endif
