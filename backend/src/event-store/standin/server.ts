import { randomUUID } from 'node:crypto';
import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { GossipService } from '@eventstore/db-client/generated/gossip_grpc_pb.js';
import { ClusterInfo, EndPoint, MemberInfo } from '@eventstore/db-client/generated/gossip_pb.js';
import { ServerFeaturesService } from '@eventstore/db-client/generated/serverfeatures_grpc_pb.js';
import { SupportedMethod, SupportedMethods } from '@eventstore/db-client/generated/serverfeatures_pb.js';
import { UUID, type Empty } from '@eventstore/db-client/generated/shared_pb.js';
import { StreamsService } from '@eventstore/db-client/generated/streams_grpc_pb.js';
import { appendHandler, batchAppendHandler } from './append';
import type { Faults } from './faults';
import { InMemoryLog } from './log';
import { readHandler, type ReadContext } from './read';

/**
 * TEST SUPPORT: a stand-in EventStoreDB node speaking EventStoreDB's gRPC protocol (insecure, `tls=false`), built on
 * the service definitions shipped in `@eventstore/db-client`, so that the official client and the adapter are
 * exercised on the wire: batch append, reads of streams and `$all`, catch-up subscriptions with their confirmation
 * and caught-up messages, server features and gossip. Storage is in memory (see `InMemoryLog` for the behaviour it
 * keeps), and `faults` makes it misbehave as a real cluster can. Not a database: nothing survives the process.
 */
export class EventStoreDbStandIn {
  readonly log = new InMemoryLog();
  /** Faults in force; set them at any time (see Faults). */
  faults: Faults = {};
  /** Subscription requests received so far, refused or not (a client that spins shows here). */
  subscriptionRequests = 0;
  /** Reads of `$all` received so far (subscriptions apart), refused or not. */
  allReads = 0;
  private readonly subscriptions: ReadContext['subscriptions'] = new Set();
  private server: Server | null = null;

  private constructor(
    readonly host: string,
    public port: number,
  ) {}

  /** Starts a stand-in on `port` (0: a free one). */
  static async start(options: { host?: string; port?: number } = {}): Promise<EventStoreDbStandIn> {
    const standIn = new EventStoreDbStandIn(options.host ?? '127.0.0.1', options.port ?? 0);
    await standIn.listen();
    return standIn;
  }

  /** The connection string of this node. */
  get url(): string {
    return `esdb://${this.host}:${this.port}?tls=false`;
  }

  get running(): boolean {
    return this.server !== null;
  }

  /** The server goes away (connections cut, the port closed); the log is kept for `resume`. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.forceShutdown();
  }

  /** The server comes back on the same port, with the same log. */
  async resume(): Promise<void> {
    if (!this.server) await this.listen();
  }

  /** Subscriptions open on this node. */
  get liveSubscriptions(): number {
    return this.subscriptions.size;
  }

  /** Drops every live subscription (the server ends them with UNAVAILABLE, as when a node restarts). */
  dropSubscriptions(): number {
    const live = [...this.subscriptions];
    for (const call of live) call.emit('error', { code: 14, details: 'Subscription dropped by the stand-in' });
    return live.length;
  }

  /** Deletes the events hidden by truncate-before from the log, as an EventStoreDB scavenge does. */
  scavenge(): number {
    return this.log.scavenge();
  }

  private async listen(): Promise<void> {
    const server = new Server();
    const faults = () => this.faults;
    server.addService(StreamsService, {
      read: readHandler({ log: this.log, faults, subscriptions: this.subscriptions, onSubscribe: () => this.subscriptionRequests++, onReadAll: () => this.allReads++ }),
      append: appendHandler({ log: this.log, faults }),
      batchAppend: batchAppendHandler({ log: this.log, faults }),
    });
    server.addService(ServerFeaturesService, {
      getSupportedMethods: (_call: ServerUnaryCall<Empty, SupportedMethods>, callback: sendUnaryData<SupportedMethods>) =>
        callback(null, supportedMethods()),
    });
    server.addService(GossipService, {
      read: (_call: ServerUnaryCall<Empty, ClusterInfo>, callback: sendUnaryData<ClusterInfo>) => callback(null, this.clusterInfo()),
    });
    this.port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`${this.host}:${this.port}`, ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))),
    );
    this.server = server;
  }

  /** This node alone, as leader (or as follower while the NotLeader fault names another one). */
  private clusterInfo(): ClusterInfo {
    const member = new MemberInfo()
      .setInstanceId(new UUID().setString(randomUUID()))
      .setTimeStamp(String(Date.now()))
      .setState(this.faults.notLeader ? MemberInfo.VNodeState.FOLLOWER : MemberInfo.VNodeState.LEADER)
      .setIsAlive(true)
      .setHttpEndPoint(new EndPoint().setAddress(this.host).setPort(this.port));
    return new ClusterInfo().setMembersList([member]);
  }
}

/** What the node says it supports: the client uses BatchAppend only when it is listed. */
function supportedMethods(): SupportedMethods {
  const streams = 'event_store.client.streams.streams';
  const methods = ['read', 'append', 'batchappend'].map((name) =>
    new SupportedMethod().setServiceName(streams).setMethodName(name).setFeaturesList(name === 'read' ? ['position', 'events'] : []),
  );
  return new SupportedMethods().setEventStoreServerVersion('23.10.0-standin').setMethodsList(methods);
}
