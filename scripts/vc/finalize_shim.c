/* LD_PRELOAD shim used by scripts/virtual-cluster: an MPI_Finalize that cannot hang.
 *
 * Why: with Debian's MPICH 4.0.2 (ch4:ucx) and UCX 1.13, when UCX runs over TCP (as it must
 * between emulated hosts), MPI_Finalize hangs most of the time once the ranks have connected
 * pairwise: every rank closes its endpoints in UCX "flush" mode, which over TCP needs the peer
 * to keep progressing, but ranks that finished closing wait in the PMI barrier and stop
 * progressing, so the others wait for ever (reproduced without namespaces: 4 local ranks,
 * MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self, pairwise MPI_Sendrecv then MPI_Finalize).
 *
 * What it does instead: a barrier over MPI_COMM_WORLD (every message of the program has been
 * delivered), flush stdio, then tell the hydra process manager that this rank finalized
 * (PMI-1 wire command "finalize" on the PMI_FD socket, as MPICH's own PMI client does), and
 * return MPI_SUCCESS. UCX endpoints and sockets are released when the process exits. The
 * program's own code after MPI_Finalize (closing files, its exit code) runs as usual.
 * Only meant for the emulated cluster; real clusters use their MPI unchanged. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int finalized = 0;

static void pmi_finalize(void) {
  const char* env = getenv("PMI_FD");
  if (!env) return;
  int fd = atoi(env);
  const char cmd[] = "cmd=finalize\n";
  if (write(fd, cmd, sizeof cmd - 1) != (ssize_t)(sizeof cmd - 1)) return;
  char buf[256];
  size_t got = 0;
  /* Wait for "cmd=finalize_ack\n". */
  while (got < sizeof buf - 1) {
    ssize_t n = read(fd, buf + got, 1);
    if (n <= 0) break;
    got += (size_t)n;
    if (buf[got - 1] == '\n') break;
  }
  close(fd);
}

int MPI_Finalize(void) {
  int initialized = 0;
  PMPI_Initialized(&initialized);
  if (!initialized || finalized || getenv("NTVC_REAL_FINALIZE")) return PMPI_Finalize();
  PMPI_Barrier(MPI_COMM_WORLD);
  fflush(NULL);
  int size = 1;
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 1) pmi_finalize();
  finalized = 1;
  return MPI_SUCCESS;
}

int MPI_Finalized(int* flag) {
  if (finalized) {
    *flag = 1;
    return MPI_SUCCESS;
  }
  return PMPI_Finalized(flag);
}
