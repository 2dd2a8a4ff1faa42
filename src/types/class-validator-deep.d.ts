// class-validator ships types for its index only; src/container/arg-decorators.ts
// imports single decorator modules and types them from the index.
declare module 'class-validator/cjs/*';
