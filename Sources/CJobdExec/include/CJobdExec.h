// jobd-cgexec's library (issue 39): the exec plan and each step of a run's setup, split by what it
// does. jobd-cgexec (Sources/jobd-cgexec/main.c) is a thin main over it; jobd's Swift imports its
// exit statuses and plan tags from here, and the tests call its parser on what Swift's encoder wrote.
#ifndef JOBD_EXEC_H
#define JOBD_EXEC_H

#include "exit.h"
#include "fence.h"
#include "plan.h"
#include "process.h"
#include "sandbox.h"

#endif
