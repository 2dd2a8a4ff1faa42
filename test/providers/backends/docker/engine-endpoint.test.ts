import { describeEngineError, engineEndpoint } from '../../../../src/providers/exec/engine/engine-errors.js';

describe('engineEndpoint', () => {
  it('defaults to DOCKER_HOST, else the local socket', () => {
    expect(engineEndpoint(undefined, {}).options).toEqual({ socketPath: '/var/run/docker.sock' });
    expect(engineEndpoint(undefined, { DOCKER_HOST: 'unix:///run/podman/podman.sock' }).options).toEqual({
      socketPath: '/run/podman/podman.sock',
    });
  });

  it('reads unix paths and tcp endpoints', () => {
    expect(engineEndpoint('/tmp/d.sock', {}).endpoint).toBe('unix:///tmp/d.sock');
    expect(engineEndpoint('tcp://10.0.0.5:2375', {}).options).toEqual({ protocol: 'http', host: '10.0.0.5', port: 2375 });
    expect(engineEndpoint('https://engine.example', {}).options).toEqual({ protocol: 'https', host: 'engine.example', port: 2376 });
  });

  it('refuses anything else with the expected forms', () => {
    expect(() => engineEndpoint('ssh://me@host', {})).toThrow(
      'invalid container engine host "ssh://me@host": expected unix:///path, /path or tcp://host:port',
    );
  });

  it('names an unreachable engine by its endpoint and the socket error', () => {
    const error = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(describeEngineError(error, 'tcp://h:1')).toBe('container engine unreachable at tcp://h:1 (ECONNREFUSED)');
    expect(describeEngineError(new Error('(HTTP code 409) unexpected - container is paused'), 'x')).toBe('container is paused');
  });
});
