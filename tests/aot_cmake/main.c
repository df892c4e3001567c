/* Calls the hpcjit cc --c-header library built by hpcjit_add_module(). */
#include <stdio.h>

#include "kernels.h"

int main(void)
{
    printf("%.17g\n", kernels_geometric(0.75, 40));
    printf("%lld\n", (long long)kernels_collatz_steps(27));
    return 0;
}
