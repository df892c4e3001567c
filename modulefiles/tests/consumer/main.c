/* Prints this node's architecture key through the installed C libraries. */
#include <stdio.h>
#include <stdlib.h>

#include "hpcjit/compiler.h"
#include "hpcjit/runtime.h"
#include "hpcjit/topo.h"

int main(void)
{
    TopoNode *node = NULL;
    HjTarget tgt = {0};
    if (topo_discover(&node, 0) != TOPO_OK)
        return 1;
    hj_target_host(&tgt);
    char *key = topo_arch_key(node, tgt.cpu, tgt.features);
    if (!key)
        return 1;
    printf("arch key %s\n", key);
    free(key);
    hj_target_free(&tgt);
    topo_free(node);
    return 0;
}
