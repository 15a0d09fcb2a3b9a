#include "CBareMHD.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <microhttpd.h>

static const char page[] = "Hello, World!";

static enum MHD_Result handle(void *cls, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls) {
    static int marker;
    (void)url; (void)method; (void)version; (void)upload_data; (void)upload_data_size;
    if (*con_cls != &marker) {
        /* First call: headers are in. Answer on the next one, so the connection stays alive. */
        *con_cls = &marker;
        return MHD_YES;
    }
    *con_cls = NULL;
    struct MHD_Response *response =
        MHD_create_response_from_buffer(sizeof(page) - 1, (void *)page, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(response, "Content-Type", "text/plain; charset=utf-8");
    if (cls != NULL) {
        /* The same header lines WebServer sends by default, to separate the cost of sending
           them from the cost of the Swift layer. */
        MHD_add_response_header(response, "Content-Security-Policy",
                                "default-src 'self'; img-src 'self' data:; object-src 'none'; "
                                "base-uri 'self'; form-action 'self'; frame-ancestors 'none'");
        MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
        MHD_add_response_header(response, "Referrer-Policy", "same-origin");
        MHD_add_response_header(response, "X-Request-ID", "5e1f0c2a-1f");
    }
    enum MHD_Result result = MHD_queue_response(connection, MHD_HTTP_OK, response);
    MHD_destroy_response(response);
    return result;
}

struct MHD_Daemon *cbaremhd_start(uint16_t port, unsigned int threads, int same_headers) {
    struct sockaddr_in address;
    memset(&address, 0, sizeof(address));
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, port, NULL, NULL,
                            handle, same_headers ? (void *)&page : NULL,
                            MHD_OPTION_THREAD_POOL_SIZE, threads,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address,
                            MHD_OPTION_CONNECTION_LIMIT, 1064,
                            MHD_OPTION_END);
}

uint16_t cbaremhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

void cbaremhd_stop(struct MHD_Daemon *daemon) { MHD_stop_daemon(daemon); }
