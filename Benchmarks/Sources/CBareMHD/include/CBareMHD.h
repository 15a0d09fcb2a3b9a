#pragma once
#include <stdint.h>

/*
 * The baseline of the WebServer benchmark: a bare libmicrohttpd handler written against the C
 * API the way its examples do it (two calls per request, a persistent response buffer), with
 * the same daemon mode the Swift server uses (internal thread pool, epoll).
 */
struct MHD_Daemon;

/**
 * Starts the bare daemon on 127.0.0.1:`port` (0: any free port); NULL on failure.
 * With `same_headers`, responses also carry the header lines WebServer adds by default.
 */
struct MHD_Daemon *cbaremhd_start(uint16_t port, unsigned int threads, int same_headers);
/** The port the daemon listens on. */
uint16_t cbaremhd_port(struct MHD_Daemon *daemon);
void cbaremhd_stop(struct MHD_Daemon *daemon);
