/**
 * Paged KV cache: fixed-size blocks with reference counts, and prefix caching (vLLM's
 * automatic prefix caching): a full prompt block is registered under the chained hash of its
 * tokens; a freed registered block stays cached and is evicted least-recently-freed first
 * when a new block is needed.
 *
 * @module
 */

/** Block allocator and prefix cache. Keeps usage and fragmentation up to date incrementally. */
export class KvCache {
  readonly numBlocks: number;
  readonly blockSize: number;
  private readonly refCount: Int32Array;
  private readonly fill: Int32Array;
  private readonly hashOf: Float64Array;
  /** Free blocks holding nothing reusable (a stack). */
  private readonly freeList: number[] = [];
  /** Free blocks still holding a cached prefix, in eviction order (oldest first). */
  private readonly cachedFree = new Map<number, true>();
  private readonly hashToBlock = new Map<number, number>();
  private allocated = 0;
  private held = 0;
  /** Blocks evicted from the prefix cache to make room. */
  evictions = 0;

  constructor(numBlocks: number, blockSize: number) {
    this.numBlocks = numBlocks;
    this.blockSize = blockSize;
    this.refCount = new Int32Array(numBlocks);
    this.fill = new Int32Array(numBlocks);
    this.hashOf = new Float64Array(numBlocks).fill(Number.NaN);
    for (let b = numBlocks - 1; b >= 0; b--) this.freeList.push(b);
  }

  /** Blocks that can be handed out now (empty ones plus evictable cached ones). */
  freeBlocks(): number {
    return this.freeList.length + this.cachedFree.size;
  }

  /** Blocks referenced by at least one sequence. */
  allocatedBlocks(): number {
    return this.allocated;
  }

  /** Tokens held in referenced blocks. */
  tokensHeld(): number {
    return this.held;
  }

  /** Fraction of blocks referenced by a sequence (vLLM's kv_cache_usage_perc), 0..1. */
  usage(): number {
    return this.allocated / this.numBlocks;
  }

  /** 1 − tokens held / (allocated blocks × block size); 0 when nothing is allocated. */
  fragmentation(): number {
    return this.allocated === 0 ? 0 : 1 - this.held / (this.allocated * this.blockSize);
  }

  /** Cached blocks matching the longest prefix of `hashes` (not yet acquired). */
  lookup(hashes: readonly number[], maxBlocks: number): number[] {
    const out: number[] = [];
    const n = Math.min(hashes.length, maxBlocks);
    for (let i = 0; i < n; i++) {
      const b = this.hashToBlock.get(hashes[i]!);
      if (b === undefined) break;
      out.push(b);
    }
    return out;
  }

  /** How many of `blocks` are currently free-but-cached (acquiring them uses up free capacity). */
  countFreeCached(blocks: readonly number[]): number {
    let n = 0;
    for (const b of blocks) if (this.refCount[b] === 0) n++;
    return n;
  }

  /** Take a reference on cached blocks found by lookup. */
  acquire(blocks: readonly number[]): void {
    for (const b of blocks) {
      if (this.refCount[b] === 0) {
        this.cachedFree.delete(b);
        this.allocated++;
        this.held += this.fill[b]!;
      }
      this.refCount[b]!++;
    }
  }

  /** Allocate `n` empty blocks, evicting cached ones if needed; null (and nothing taken) if fewer are free. */
  allocate(n: number): number[] | null {
    if (n > this.freeBlocks()) return null;
    const out: number[] = new Array(n);
    for (let i = 0; i < n; i++) {
      let b = this.freeList.pop();
      if (b === undefined) {
        b = this.cachedFree.keys().next().value as number;
        this.cachedFree.delete(b);
        this.hashToBlock.delete(this.hashOf[b]!);
        this.hashOf[b] = Number.NaN;
        this.fill[b] = 0;
        this.evictions++;
      }
      this.refCount[b] = 1;
      this.allocated++;
      out[i] = b;
    }
    return out;
  }

  /** Drop a sequence's references, last block first (so a sequence's tail is evicted before its head). */
  release(blocks: readonly number[]): void {
    for (let i = blocks.length - 1; i >= 0; i--) {
      const b = blocks[i]!;
      if (--this.refCount[b]! > 0) continue;
      this.allocated--;
      this.held -= this.fill[b]!;
      if (Number.isNaN(this.hashOf[b]!)) {
        this.fill[b] = 0;
        this.freeList.push(b);
      } else {
        this.cachedFree.set(b, true);
      }
    }
  }

  /** Record how many tokens a referenced block now holds. */
  setFill(block: number, tokens: number): void {
    this.held += tokens - this.fill[block]!;
    this.fill[block] = tokens;
  }

  /**
   * Forget every cached prefix (vLLM's `POST /reset_prefix_cache`): free cached blocks become
   * empty, and blocks still in use are no longer found by a lookup (they are freed as empty).
   * Returns the number of cached blocks dropped.
   */
  resetPrefixCache(): number {
    const dropped = this.hashToBlock.size;
    for (const b of this.cachedFree.keys()) {
      this.fill[b] = 0;
      this.freeList.push(b);
    }
    this.cachedFree.clear();
    this.hashToBlock.clear();
    this.hashOf.fill(Number.NaN);
    return dropped;
  }

  /** Register a full block under its prefix hash (first writer wins). */
  register(block: number, hash: number): void {
    if (!Number.isNaN(this.hashOf[block]!) || this.hashToBlock.has(hash)) return;
    this.hashOf[block] = hash;
    this.hashToBlock.set(hash, block);
  }
}
