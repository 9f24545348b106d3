import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct } from 'constructs';
import { acknowledgeNag } from '../nag.ts';
import { InvalidPropError } from '../errors.ts';

export interface StaticEgressProps {
  /**
   * NAT gateways, each with its own Elastic IP: the addresses receivers allow-list. One is
   * cheapest; two or three keep sending through the loss of an availability zone.
   */
  readonly natGateways: number;
}

/**
 * Fixed source addresses for outbound webhooks: a VPC whose private subnets reach the internet
 * only through NAT gateways holding Elastic IPs, for the sender to run in. DynamoDB is reached
 * through a gateway endpoint (free, and off the NAT's per-GB charge); SQS, the other AWS API
 * the sender calls, goes through the NAT like the webhooks.
 */
export class StaticEgress extends Construct {
  readonly vpc: ec2.Vpc;
  readonly securityGroup: ec2.SecurityGroup;
  /** The Elastic IPs (one per NAT gateway), as tokens that resolve to the addresses at deploy time. */
  readonly egressIps: readonly string[];

  constructor(scope: Construct, id: string, props: StaticEgressProps) {
    super(scope, id);
    if (!Number.isInteger(props.natGateways) || props.natGateways < 1 || props.natGateways > 3) {
      throw new InvalidPropError('staticEgress.natGateways', `must be 1, 2 or 3, got ${props.natGateways}`);
    }
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      // Lambda needs subnets in at least two zones; NAT gateways go in the first `natGateways`.
      maxAzs: Math.max(2, props.natGateways),
      natGateways: props.natGateways,
      subnetConfiguration: [
        { name: 'nat', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'sender', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 22 },
      ],
    });
    this.vpc.addGatewayEndpoint('DynamoDb', { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB });
    this.securityGroup = new ec2.SecurityGroup(this, 'SenderSecurityGroup', {
      vpc: this.vpc,
      description: 'Hookline sender: outbound only (webhooks, SQS, DynamoDB); nothing may connect in',
      allowAllOutbound: true,
    });
    this.egressIps = this.vpc.publicSubnets
      .map((subnet) => subnet.node.tryFindChild('EIP'))
      .filter((eip): eip is ec2.CfnEIP => eip instanceof ec2.CfnEIP)
      .map((eip) => eip.ref);
    acknowledgeNag(this.vpc, [
      {
        id: 'AwsSolutions-VPC7',
        reason:
          'The VPC holds only the sender, whose every attempt (target, status, duration) is already recorded in DynamoDB and its logs; flow logs would add a per-GB charge for the same facts. Add vpc.addFlowLog() if your policy requires them.',
      },
    ]);
  }

  /** Where a function goes to send from the static addresses. */
  get functionPlacement(): {
    readonly vpc: ec2.IVpc;
    readonly vpcSubnets: ec2.SubnetSelection;
    readonly securityGroups: ec2.ISecurityGroup[];
  } {
    return {
      vpc: this.vpc,
      vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
      securityGroups: [this.securityGroup],
    };
  }
}
