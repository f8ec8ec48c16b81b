// Invented sample kernel: 1.5.1 handles broadcasting.
int op_add(int a, int b) { return a + b; }
int op_add_broadcast(int a) { return a; }
