/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hog: a CPU hog for the group-fairness benchmark (run-fairness-bench).
 *
 *   hog [-t THREADS] [-s]
 *
 * Runs THREADS threads in all (default 1, the main thread included), each
 * spinning on the CPU, or with -s sleeping, until killed.  It dies with its
 * parent (PR_SET_PDEATHSIG), so a benchmark killed with SIGKILL leaves no
 * hogs behind on a shared machine.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static int sleeper;

static void *
hog (void *arg)
{
  volatile unsigned long spins = 0;

  (void) arg;
  if (sleeper)
    for (;;)
      pause ();
  for (;;)
    spins++;
  return NULL;
}

static void
usage (void)
{
  fprintf (stderr, "usage: hog [-t THREADS] [-s]\n");
  exit (2);
}

int
main (int argc, char **argv)
{
  long threads = 1;
  int opt;

  while ((opt = getopt (argc, argv, "t:s")) != -1)
    {
      char *end;

      switch (opt)
        {
        case 't':
          errno = 0;
          threads = strtol (optarg, &end, 10);
          if (errno || *end || threads < 1 || threads > 100000)
            usage ();
          break;
        case 's':
          sleeper = 1;
          break;
        default:
          usage ();
        }
    }
  if (optind != argc)
    usage ();

  /* The parent may have died before the prctl: then nobody would kill us. */
  pid_t parent = getppid ();
  if (prctl (PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid () != parent
      || parent == 1)
    return 1;

  for (long i = 1; i < threads; i++)
    {
      pthread_t thread;
      int err = pthread_create (&thread, NULL, hog, NULL);

      if (err)
        {
          fprintf (stderr, "hog: pthread_create: %s\n", strerror (err));
          return 1;
        }
    }
  hog (NULL);
  return 0;
}
