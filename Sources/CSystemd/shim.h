#ifndef JOBD_CSYSTEMD_SHIM_H
#define JOBD_CSYSTEMD_SHIM_H

#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <systemd/sd-id128.h>
#include <systemd/sd-bus.h>

#endif
